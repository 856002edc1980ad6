import type { Client } from 'pg';

/**
 * Postgres notification channel of status changes, sent at commit. Its payload is empty: any role
 * of the server may LISTEN on any channel, so a notification must not name the tenant or the
 * serial; a replica told of a change reads what changed from its own table.
 */
export const STATUS_CHANGED_CHANNEL = 'ocsp_status_changed';

/** Subscribes `client` (a connection of its own) to the status change notifications. */
export async function listenForStatusChanges(client: Client): Promise<void> {
  await client.query(`LISTEN ${STATUS_CHANGED_CHANNEL}`);
}
