import { DataSource } from 'typeorm';
import {
  RATE_LIMIT_WINDOW_MS,
  RateLimitDecision,
  rateLimitDecision,
  windowStartOf,
} from './rate-limit-window';

/** Windows older than this are deleted by the housekeeping job. */
const KEEP_WINDOWS_MS = 2 * RATE_LIMIT_WINDOW_MS;

/**
 * Per-tenant fixed-window rate limit, counted in gateway.rate_limit_windows so that every gateway
 * replica shares one count: each request adds one in a single upsert and gets the new count.
 */
export class RateLimiter {
  constructor(
    private readonly dataSource: DataSource,
    readonly limitPerMinute: number,
    private readonly now: () => number = Date.now,
  ) {}

  async consume(tenantId: string): Promise<RateLimitDecision> {
    const now = this.now();
    const windowStart = windowStartOf(now);
    const [{ count }]: { count: number }[] = await this.dataSource.query(
      `INSERT INTO gateway.rate_limit_windows AS w (tenant_id, window_start, count) VALUES ($1, $2, 1)
       ON CONFLICT (tenant_id, window_start) DO UPDATE SET count = w.count + 1
       RETURNING w.count`,
      [tenantId, new Date(windowStart)],
    );
    return rateLimitDecision(this.limitPerMinute, Number(count), windowStart, now);
  }

  /** Deletes windows that can no longer be counted in. */
  async removeOldWindows(): Promise<void> {
    await this.dataSource.query('DELETE FROM gateway.rate_limit_windows WHERE window_start < $1', [
      new Date(windowStartOf(this.now()) - KEEP_WINDOWS_MS),
    ]);
  }
}
