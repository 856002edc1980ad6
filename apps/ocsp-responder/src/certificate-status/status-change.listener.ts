import { Logger } from '@nestjs/common';
import { Client } from 'pg';
import { STATUS_CHANGED_CHANNEL, listenForStatusChanges } from './status-change-channel.store';

/** Pause before listening again after the connection was lost. */
const RECONNECT_MS = 1_000;

/**
 * Listens on its own connection for the status changes other replicas commit (`pg_notify` in the
 * transaction of each revocation or released hold, naming nothing) and tells `onChange`, so a
 * replica reads the change as soon as it is committed rather than at the next poll.
 * A notification is sent to every listener at commit, before the replica that applied the change
 * answers with the new status; a relying party that saw `revoked` on one replica and then asks
 * another gets `revoked` there too. Notifications missed while reconnecting are caught by the
 * projection's poll.
 */
export class StatusChangeListener {
  private readonly logger = new Logger('StatusChangeListener');
  private client: Client | undefined;
  private stopped = false;
  private retry: NodeJS.Timeout | undefined;

  constructor(
    private readonly databaseUrl: string,
    private readonly onChange: () => void,
  ) {}

  /** Resolves once listening (or after the first failure, retried in the background). */
  async start(): Promise<void> {
    const client = new Client({ connectionString: this.databaseUrl });
    this.client = client;
    // The payload says nothing (any role may listen): the projection reads what changed.
    client.on('notification', (message) => {
      if (message.channel === STATUS_CHANGED_CHANNEL) this.onChange();
    });
    const lost = (err?: unknown) => {
      if (this.client !== client) return;
      this.client = undefined;
      client.end().catch(() => undefined);
      if (this.stopped) return;
      this.logger.warn({ err }, 'status change notifications lost; listening again');
      this.retry = setTimeout(() => void this.start(), RECONNECT_MS);
      this.retry.unref();
    };
    client.on('error', lost);
    client.on('end', () => lost());
    try {
      await client.connect();
      // Stopped while connecting: end() on a client not yet connected may leave its socket open.
      if (this.client !== client) {
        await client.end().catch(() => undefined);
        return;
      }
      await listenForStatusChanges(client);
    } catch (err) {
      lost(err);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }
}
