import { EntityManager } from 'typeorm';

/** A webhook event before it is addressed: its type, the certificate (or CA) it orders by, its data. */
export interface OutgoingEvent {
  tenantId: string;
  type: string;
  orderKey: string;
  /** The event's time (the body's `timestamp`). */
  timestamp: string;
  data: Record<string, unknown>;
}

/** The delivered body (Standard Webhooks): `{"type", "timestamp", "data"}`. */
export function webhookBody(event: OutgoingEvent): string {
  return JSON.stringify({ type: event.type, timestamp: event.timestamp, data: event.data });
}

/**
 * One message per subscription of the tenant that asked for the event's type (or only the given
 * subscriptions), in the caller's transaction. Returns how many were queued.
 */
export async function enqueue(
  manager: EntityManager,
  event: OutgoingEvent,
  onlySubscriptions?: readonly string[],
): Promise<number> {
  const rows = (await manager.query(
    `INSERT INTO webhooks.messages (id, subscription_id, tenant_id, type, order_key, body)
     SELECT gen_random_uuid(), s.id, s.tenant_id, $2, $3, $4
     FROM webhooks.subscriptions s
     WHERE s.tenant_id = $1 AND s.deleted_at IS NULL
       AND ($5::uuid[] IS NULL AND $2 = ANY(s.events) OR s.id = ANY($5::uuid[]))
     ORDER BY s.created_at, s.id
     RETURNING id`,
    [event.tenantId, event.type, event.orderKey, webhookBody(event), onlySubscriptions ?? null],
  )) as unknown[];
  return rows.length;
}
