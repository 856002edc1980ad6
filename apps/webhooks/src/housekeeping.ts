import { WebhookRetentionStore } from './stores/webhook-retention.store';

const HOUR_MS = 3_600_000;

/**
 * Storage stays bounded: delivered, failed and cancelled messages and their attempts go once older
 * than EVENT_RETENTION_DAYS, and so do the read-model rows (and their notices) of certificates
 * expired or revoked that long ago. Hourly, and once at start.
 */
export class WebhookHousekeeping {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly retention: WebhookRetentionStore,
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
    await this.retention.removeBefore(new Date(now.getTime() - this.retentionMs));
  }
}
