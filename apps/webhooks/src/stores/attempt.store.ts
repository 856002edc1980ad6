import { WebhookDeliveryAttempt } from '@ca/contracts';
import { DataSource } from 'typeorm';

interface AttemptRow {
  message_id: string;
  type: string;
  attempt: number;
  status_code: number | null;
  duration_ms: number;
  at: Date | string;
  error: string | null;
}

/** `webhooks.attempts` as it is read (the message store writes each attempt with its outcome). */
export abstract class AttemptStore {
  /** The subscription's newest `limit` attempts first, as the delivery log shows them. */
  abstract newestOf(subscriptionId: string, limit: number): Promise<WebhookDeliveryAttempt[]>;
}

export class SqlAttemptStore extends AttemptStore {
  constructor(private readonly db: DataSource) {
    super();
  }

  async newestOf(subscriptionId: string, limit: number): Promise<WebhookDeliveryAttempt[]> {
    const rows = (await this.db.query(
      `SELECT message_id, type, attempt, status_code, duration_ms, at, error FROM webhooks.attempts
       WHERE subscription_id = $1 ORDER BY id DESC LIMIT $2`,
      [subscriptionId, limit],
    )) as AttemptRow[];
    return rows.map((row) => ({
      eventId: row.message_id,
      type: row.type,
      attempt: row.attempt,
      ...(row.status_code === null ? {} : { statusCode: row.status_code }),
      durationMs: row.duration_ms,
      at: new Date(row.at).toISOString(),
      ...(row.error === null ? {} : { error: row.error }),
    }));
  }
}
