import { DataSource } from 'typeorm';

/** Rows deleted per statement, so that pruning never holds long locks. */
const CHUNK = 5_000;

/** What the housekeeping deletes once past the retention: finished messages, attempts, the read model of ended certificates. */
export abstract class WebhookRetentionStore {
  /**
   * Deletes attempts made and messages finished before `cutoff`, and the rows (and notices) of
   * certificates expired (and announced) or revoked before it.
   */
  abstract removeBefore(cutoff: Date): Promise<void>;
}

export class SqlWebhookRetentionStore extends WebhookRetentionStore {
  constructor(private readonly db: DataSource) {
    super();
  }

  async removeBefore(cutoff: Date): Promise<void> {
    for (const sql of [
      `DELETE FROM webhooks.attempts WHERE id IN (SELECT id FROM webhooks.attempts WHERE at < $1 LIMIT ${CHUNK})`,
      `DELETE FROM webhooks.messages WHERE id IN (
         SELECT id FROM webhooks.messages WHERE status <> 'pending' AND finished_at < $1 LIMIT ${CHUNK})`,
      `DELETE FROM webhooks.expiry_notices WHERE certificate_id IN (
         SELECT certificate_id FROM webhooks.certificates WHERE not_after < $1 OR revoked_at < $1 LIMIT ${CHUNK})`,
      `DELETE FROM webhooks.certificates WHERE certificate_id IN (
         SELECT certificate_id FROM webhooks.certificates
         WHERE (not_after < $1 AND expired_announced) OR revoked_at < $1 LIMIT ${CHUNK})`,
    ]) {
      for (;;) {
        const [, deleted] = (await this.db.query(sql, [cutoff])) as [unknown, number];
        if (deleted < CHUNK) break;
      }
    }
  }
}
