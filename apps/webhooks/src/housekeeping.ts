import { DataSource } from 'typeorm';

const HOUR_MS = 3_600_000;
/** Rows deleted per statement, so that pruning never holds long locks. */
const CHUNK = 5_000;

/**
 * Storage stays bounded: delivered, failed and cancelled messages and their attempts go once older
 * than EVENT_RETENTION_DAYS, and so do the read-model rows (and their notices) of certificates
 * expired or revoked that long ago. Hourly, and once at start.
 */
export class WebhookHousekeeping {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly dataSource: DataSource,
    private readonly retentionMs: number,
    private readonly onError: (err: unknown) => void,
  ) {}

  start(): void {
    const run = () => {
      if (this.running) return;
      this.running = this.prune()
        .catch(this.onError)
        .finally(() => (this.running = undefined));
    };
    run();
    this.timer = setInterval(run, HOUR_MS);
    this.timer.unref?.();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  async prune(now = new Date()): Promise<void> {
    const cutoff = new Date(now.getTime() - this.retentionMs);
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
        const [, deleted] = (await this.dataSource.query(sql, [cutoff])) as [unknown, number];
        if (deleted < CHUNK) break;
      }
    }
  }
}
