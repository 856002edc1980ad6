import { certificateData } from '../events/lifecycle-events';
import { OutgoingEvent } from '../events/outgoing-event';
import { WebhooksDatabase } from '../stores/webhooks-database.store';

const DAY_MS = 86_400_000;
/** Certificates handled per statement: a scan after a long outage works through them in batches. */
const BATCH = 500;

/**
 * Finds, every EXPIRY_SCAN_SECONDS, the thresholds crossed and the certificates expired since the
 * last scan. `certificate.expiring` goes once per threshold of a subscription's `expiringDays` to
 * an unrevoked certificate that has not been renewed (a certificate that crosses several thresholds
 * between two scans gets one event, for the smallest); `certificate.expired` once per certificate
 * that was still unrevoked when its notAfter passed. Each notice is recorded in the same
 * transaction as its message, so replicas scanning at once never announce one twice.
 */
export class ExpiryScanner {
  private timer: NodeJS.Timeout | undefined;
  private scanning: Promise<void> | undefined;

  constructor(
    private readonly database: WebhooksDatabase,
    private readonly intervalMs: number,
    private readonly onQueued: () => void,
    private readonly onError: (err: unknown) => void,
    private readonly now: () => Date = () => new Date(),
  ) {}

  start(): void {
    const tick = () => {
      this.scanning = this.scan()
        .catch(this.onError)
        .finally(() => (this.scanning = undefined));
    };
    tick();
    this.timer = setInterval(() => {
      if (!this.scanning) tick();
    }, this.intervalMs);
    this.timer.unref?.();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.scanning;
  }

  async scan(): Promise<void> {
    let found = 0;
    for (let n; (n = await this.expiringBatch()) > 0;) found += n;
    for (let n; (n = await this.expiredBatch()) > 0;) found += n;
    if (found > 0) this.onQueued();
  }

  private async expiringBatch(): Promise<number> {
    const now = this.now();
    return this.database.transaction(async ({ certificates, messages }) => {
      const rows = await certificates.claimExpiring(now, BATCH);
      for (const row of rows) {
        const msLeft = new Date(row.not_after).getTime() - now.getTime();
        const event: OutgoingEvent = {
          tenantId: row.tenant_id,
          type: 'certificate.expiring',
          orderKey: row.certificate_id,
          timestamp: now.toISOString(),
          data: { ...certificateData(row, 'Active'), daysLeft: Math.max(0, Math.floor(msLeft / DAY_MS)) },
        };
        await messages.enqueue(event, [row.subscription_id]);
      }
      return rows.length;
    });
  }

  private async expiredBatch(): Promise<number> {
    const now = this.now();
    return this.database.transaction(async ({ certificates, messages }) => {
      const rows = await certificates.claimExpired(now, BATCH);
      for (const row of rows) {
        await messages.enqueue({
          tenantId: row.tenant_id,
          type: 'certificate.expired',
          orderKey: row.certificate_id,
          timestamp: now.toISOString(),
          data: certificateData(row, 'Expired'),
        });
      }
      return rows.length;
    });
  }
}
