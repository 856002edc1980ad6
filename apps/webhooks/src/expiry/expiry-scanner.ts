import { DataSource } from 'typeorm';
import { OutgoingEvent, enqueue } from '../events/enqueue';
import { certificateData } from '../events/lifecycle-events';

const DAY_MS = 86_400_000;
/** Certificates handled per statement: a scan after a long outage works through them in batches. */
const BATCH = 500;

interface DueRow {
  subscription_id: string;
  certificate_id: string;
  tenant_id: string;
  serial_number: string;
  common_name: string | null;
  client_id: string | null;
  subject_alternative_names: string[];
  not_after: Date | string;
  revoked_at: null;
}

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
    private readonly dataSource: DataSource,
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
    return this.dataSource.transaction(async (manager) => {
      const rows = (await manager.query(
        `WITH crossed AS (
           SELECT s.id AS subscription_id, c.certificate_id, t AS threshold_days
           FROM webhooks.subscriptions s
           JOIN webhooks.certificates c ON c.tenant_id = s.tenant_id
           CROSS JOIN LATERAL unnest(s.expiring_days) AS t
           WHERE s.deleted_at IS NULL AND 'certificate.expiring' = ANY(s.events)
             AND c.revoked_at IS NULL AND c.renewed_by IS NULL
             AND c.not_after > $1 AND c.not_after <= $1::timestamptz + t * interval '1 day'
             AND NOT EXISTS (SELECT 1 FROM webhooks.expiry_notices n
                             WHERE n.subscription_id = s.id AND n.certificate_id = c.certificate_id
                               AND n.threshold_days = t)
           LIMIT $2
         ), fresh AS (
           INSERT INTO webhooks.expiry_notices (subscription_id, certificate_id, threshold_days)
           SELECT * FROM crossed ON CONFLICT DO NOTHING
           RETURNING subscription_id, certificate_id
         )
         SELECT DISTINCT f.subscription_id, c.*
         FROM fresh f JOIN webhooks.certificates c ON c.certificate_id = f.certificate_id`,
        [now, BATCH],
      )) as DueRow[];
      for (const row of rows) {
        const msLeft = new Date(row.not_after).getTime() - now.getTime();
        const event: OutgoingEvent = {
          tenantId: row.tenant_id,
          type: 'certificate.expiring',
          orderKey: row.certificate_id,
          timestamp: now.toISOString(),
          data: { ...certificateData(row, 'Active'), daysLeft: Math.max(0, Math.floor(msLeft / DAY_MS)) },
        };
        await enqueue(manager, event, [row.subscription_id]);
      }
      return rows.length;
    });
  }

  private async expiredBatch(): Promise<number> {
    const now = this.now();
    return this.dataSource.transaction(async (manager) => {
      const [rows] = (await manager.query(
        `UPDATE webhooks.certificates SET expired_announced = true
         WHERE certificate_id IN (
           SELECT certificate_id FROM webhooks.certificates
           WHERE not_after <= $1 AND revoked_at IS NULL AND NOT expired_announced
           ORDER BY not_after LIMIT $2 FOR UPDATE SKIP LOCKED)
         RETURNING *`,
        [now, BATCH],
      )) as [DueRow[], number];
      for (const row of rows) {
        await enqueue(manager, {
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
