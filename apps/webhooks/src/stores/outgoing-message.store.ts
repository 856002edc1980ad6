import { DataSource, EntityManager } from 'typeorm';
import { prepared } from '@ca/persistence';
import { OutgoingEvent, webhookBody } from '../events/outgoing-event';

/** `webhooks.messages` as the events fill it: one message per interested subscription, or none left pending. */
export abstract class OutgoingMessageStore {
  /**
   * One message per subscription of the tenant that asked for the event's type (or only the given
   * subscriptions). Returns how many were queued.
   */
  abstract enqueue(event: OutgoingEvent, onlySubscriptions?: readonly string[]): Promise<number>;
  /**
   * enqueue for many events at once, in their order (each subscription's messages keep it): one
   * statement for a whole run of lifecycle events. Returns how many were queued.
   */
  abstract enqueueAll(events: readonly OutgoingEvent[]): Promise<number>;
  /** The newest message of this type queued for the subscription (its id). */
  abstract newest(subscriptionId: string, type: string): Promise<string>;
  /** The subscription's pending messages will not be sent: cancelled. */
  abstract cancelPending(subscriptionId: string): Promise<void>;
}

export class SqlOutgoingMessageStore extends OutgoingMessageStore {
  constructor(private readonly db: DataSource | EntityManager) {
    super();
  }

  async enqueue(event: OutgoingEvent, onlySubscriptions?: readonly string[]): Promise<number> {
    const rows = (await this.db.query(
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

  async enqueueAll(events: readonly OutgoingEvent[]): Promise<number> {
    if (events.length === 0) return 0;
    const rows = (await this.db.query(
      // Prepared: every event batch runs it (prepared-statements.ts).
      prepared(`INSERT INTO webhooks.messages (id, subscription_id, tenant_id, type, order_key, body)
       SELECT gen_random_uuid(), s.id, s.tenant_id, e.type, e.order_key, e.body
       FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[])
              WITH ORDINALITY AS e(tenant_id, type, order_key, body, n)
       JOIN webhooks.subscriptions s
         ON s.tenant_id = e.tenant_id AND s.deleted_at IS NULL AND e.type = ANY(s.events)
       ORDER BY e.n, s.created_at, s.id
       RETURNING id`),
      [
        events.map((event) => event.tenantId),
        events.map((event) => event.type),
        events.map((event) => event.orderKey),
        events.map((event) => webhookBody(event)),
      ],
    )) as unknown[];
    return rows.length;
  }

  async newest(subscriptionId: string, type: string): Promise<string> {
    const [row] = (await this.db.query(
      `SELECT id FROM webhooks.messages WHERE subscription_id = $1 AND type = $2 ORDER BY seq DESC LIMIT 1`,
      [subscriptionId, type],
    )) as { id: string }[];
    return row.id;
  }

  async cancelPending(subscriptionId: string): Promise<void> {
    await this.db.query(
      `UPDATE webhooks.messages SET status = 'cancelled', finished_at = now()
       WHERE subscription_id = $1 AND status = 'pending'`,
      [subscriptionId],
    );
  }
}
