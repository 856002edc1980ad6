import { AuditStore, DEFAULT_AUDIT_RETENTION_DAYS } from './audit/audit.store';
import { DownloadLinks } from './downloads/download-links';
import { RateLimiter } from './rate-limit/rate-limiter';

interface HousekeepingLogger {
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
}

export interface HousekeepingOptions {
  auditPruneIntervalMs?: number;
  rateLimitCleanupIntervalMs?: number;
  downloadCleanupIntervalMs?: number;
  defaultAuditRetentionDays?: number;
}

/**
 * The gateway's periodic jobs: pruning the audit log past each tenant's retention (hourly, and
 * once soon after start), deleting rate-limit windows that are over and erasing the payloads of
 * expired download links (each every minute). Every replica runs them; the work is idempotent and pruning serializes on the chain's head lock.
 */
export class GatewayHousekeeping {
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly running = new Set<Promise<void>>();

  constructor(
    private readonly audit: AuditStore,
    private readonly rateLimiter: RateLimiter,
    private readonly logger: HousekeepingLogger,
    private readonly options: HousekeepingOptions = {},
    private readonly downloads?: DownloadLinks,
  ) {}

  start(): void {
    const every = (ms: number, job: () => Promise<void>) => {
      const timer = setInterval(() => this.track(job()), ms);
      timer.unref();
      this.timers.push(timer);
    };
    every(this.options.auditPruneIntervalMs ?? 60 * 60_000, () => this.pruneAudit());
    every(this.options.rateLimitCleanupIntervalMs ?? 60_000, () => this.removeOldWindows());
    every(this.options.downloadCleanupIntervalMs ?? 60_000, () => this.removeExpiredDownloads());
    const first = setTimeout(() => this.track(this.pruneAudit()), 10_000);
    first.unref();
    this.timers.push(first);
  }

  /** Stops the timers and waits for a job under way. */
  async stop(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    await Promise.all(this.running);
  }

  async pruneAudit(now = new Date()): Promise<void> {
    try {
      const deleted = await this.audit.prune(
        now,
        this.options.defaultAuditRetentionDays ?? DEFAULT_AUDIT_RETENTION_DAYS,
      );
      if (deleted > 0) this.logger.info({ deleted }, 'audit entries past retention pruned');
    } catch (err) {
      this.logger.warn({ err }, 'pruning the audit log failed');
    }
  }

  async removeOldWindows(): Promise<void> {
    try {
      await this.rateLimiter.removeOldWindows();
    } catch (err) {
      this.logger.warn({ err }, 'removing old rate-limit windows failed');
    }
  }

  /** docs/api.md#downloads: what waits for download is erased at expiry even if never fetched. */
  async removeExpiredDownloads(): Promise<void> {
    if (!this.downloads) return;
    try {
      const erased = await this.downloads.removeExpired();
      if (erased > 0) this.logger.info({ erased }, 'expired download payloads erased');
    } catch (err) {
      this.logger.warn({ err }, 'erasing expired downloads failed');
    }
  }

  private track(job: Promise<void>): void {
    this.running.add(job);
    void job.finally(() => this.running.delete(job));
  }
}
