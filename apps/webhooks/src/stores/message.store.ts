import { DataSource } from 'typeorm';
import { prepared } from '@ca/persistence';
import { SendOutcome } from '../delivery/http-sender';
import { ClaimedMessage, DeliveryQueue, Settlement } from '../delivery/delivery-queue';

/** A claim outlives an attempt's 10 s deadline; a replica that died holding one leaves it to lapse. */
const CLAIM_SECONDS = 30;

/**
 * `webhooks.messages` as a shared work queue: every replica claims rows with `FOR UPDATE SKIP
 * LOCKED` and a claim time, so two replicas do not send one message at once; a message is due only
 * when no earlier message of its subscription and certificate is still pending (order per certificate).
 */
export class MessageStore implements DeliveryQueue {
  constructor(
    private readonly dataSource: DataSource,
    private readonly replicaId: string,
  ) {}

  async claim(limit: number, perSubscription: number, exclude: readonly string[]): Promise<ClaimedMessage[]> {
    const rows = (await this.dataSource.query(
      // Prepared: the scheduler runs it on every tick (prepared-statements.ts).
      prepared(`WITH due AS (
         SELECT m.id, row_number() OVER (PARTITION BY m.subscription_id ORDER BY m.next_attempt_at, m.seq) AS rank
         FROM webhooks.messages m
         JOIN webhooks.subscriptions s ON s.id = m.subscription_id AND s.deleted_at IS NULL
         WHERE m.status = 'pending' AND m.next_attempt_at <= now()
           AND (m.claimed_until IS NULL OR m.claimed_until < now())
           AND NOT (m.subscription_id = ANY($3::uuid[]))
           AND NOT EXISTS (
             SELECT 1 FROM webhooks.messages e
             WHERE e.subscription_id = m.subscription_id AND e.order_key = m.order_key
               AND e.status = 'pending' AND e.seq < m.seq)
       ), picked AS (
         SELECT m.id FROM webhooks.messages m JOIN due ON due.id = m.id
         WHERE due.rank <= $2 AND m.status = 'pending'
           AND (m.claimed_until IS NULL OR m.claimed_until < now())
         ORDER BY m.next_attempt_at, m.seq
         LIMIT $1
         FOR UPDATE OF m SKIP LOCKED
       )
       UPDATE webhooks.messages m
       SET claimed_by = $4, claimed_until = now() + make_interval(secs => ${CLAIM_SECONDS})
       FROM picked, webhooks.subscriptions s
       WHERE m.id = picked.id AND s.id = m.subscription_id
       RETURNING m.id, m.subscription_id, m.tenant_id, s.url, s.sealed_secret, m.type, m.body,
                 m.attempts, m.created_at, m.seq`),
      [limit, perSubscription, exclude, this.replicaId],
    )) as [MessageRow[], number];
    return rows[0]
      .sort((a, b) => Number(a.seq) - Number(b.seq))
      .map((row) => ({
        id: row.id,
        subscriptionId: row.subscription_id,
        tenantId: row.tenant_id,
        url: row.url,
        sealedSecret: row.sealed_secret,
        type: row.type,
        body: row.body,
        attempts: row.attempts,
        createdAt: new Date(row.created_at),
      }));
  }

  async release(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.dataSource.query(
      `UPDATE webhooks.messages SET claimed_by = NULL, claimed_until = NULL
       WHERE id = ANY($1::uuid[]) AND claimed_by = $2`,
      [ids, this.replicaId],
    );
  }

  /**
   * Records the attempt and moves the message on, unless another replica has claimed it since (this
   * one's claim lapsed): then only the attempt is logged, and the other replica's outcome counts.
   */
  async settle(message: ClaimedMessage, outcome: SendOutcome, settlement: Settlement): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      await manager.query(
        `INSERT INTO webhooks.attempts (message_id, subscription_id, type, attempt, status_code, duration_ms, error)
         VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [
          message.id,
          message.subscriptionId,
          message.type,
          message.attempts + 1,
          outcome.statusCode ?? null,
          outcome.durationMs,
          outcome.error ?? null,
        ],
      );
      const status = 'delivered' in settlement ? 'delivered' : 'failed' in settlement ? 'failed' : 'pending';
      await manager.query(
        `UPDATE webhooks.messages
         SET attempts = attempts + 1, status = $2, claimed_by = NULL, claimed_until = NULL,
             next_attempt_at = coalesce($3, next_attempt_at),
             finished_at = CASE WHEN $2 = 'pending' THEN NULL ELSE now() END
         WHERE id = $1 AND status = 'pending' AND claimed_by = $4`,
        [message.id, status, 'retryAt' in settlement ? settlement.retryAt : null, this.replicaId],
      );
    });
  }

  /** Messages waiting to be delivered (the queue-depth gauge). */
  async pending(): Promise<number> {
    const [row] = (await this.dataSource.query(
      `SELECT count(*)::int AS n FROM webhooks.messages WHERE status = 'pending'`,
    )) as { n: number }[];
    return row.n;
  }
}

interface MessageRow {
  id: string;
  subscription_id: string;
  tenant_id: string;
  url: string;
  sealed_secret: Buffer;
  type: string;
  body: string;
  attempts: number;
  created_at: Date | string;
  seq: string;
}
