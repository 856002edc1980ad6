import { DataSource } from 'typeorm';
import {
  IncrementBatcher,
  RATE_LIMIT_WINDOW_MS,
  RateLimitDecision,
  rateLimitDecision,
  windowStartOf,
} from '@ca/persistence';

/** Windows older than this are deleted by the housekeeping job. */
const KEEP_WINDOWS_MS = 2 * RATE_LIMIT_WINDOW_MS;

/**
 * Per-tenant fixed-window rate limit, counted in gateway.rate_limit_windows so that every gateway
 * replica shares one count: each request adds one in an upsert and gets the new count. A tenant's
 * requests that arrive while its upsert is in flight share the next one (IncrementBatcher).
 */
export class RateLimiter {
  private readonly counts = new IncrementBatcher<{ tenantId: string; windowStart: number }>(
    (window, amount) => this.addToWindow(window.tenantId, window.windowStart, amount),
    (window) => `${window.tenantId} ${window.windowStart}`,
  );

  constructor(
    private readonly dataSource: DataSource,
    readonly limitPerMinute: number,
    private readonly now: () => number = Date.now,
  ) {}

  async consume(tenantId: string): Promise<RateLimitDecision> {
    const now = this.now();
    const windowStart = windowStartOf(now);
    const count = await this.counts.increment({ tenantId, windowStart });
    return rateLimitDecision(this.limitPerMinute, count, windowStart, now);
  }

  private async addToWindow(tenantId: string, windowStart: number, amount: number): Promise<number> {
    const [{ count }]: { count: number }[] = await this.dataSource.query(
      `INSERT INTO gateway.rate_limit_windows AS w (tenant_id, window_start, count) VALUES ($1, $2, $3)
       ON CONFLICT (tenant_id, window_start) DO UPDATE SET count = w.count + $3
       RETURNING w.count`,
      [tenantId, new Date(windowStart), amount],
    );
    return Number(count);
  }

  /** Deletes windows that can no longer be counted in. */
  async removeOldWindows(): Promise<void> {
    await this.dataSource.query('DELETE FROM gateway.rate_limit_windows WHERE window_start < $1', [
      new Date(windowStartOf(this.now()) - KEEP_WINDOWS_MS),
    ]);
  }
}
