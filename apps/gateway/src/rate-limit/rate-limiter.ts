import {
  IncrementBatcher,
  RateLimitDecision,
  RateLimitWindowStore,
  RateLimitWindowTable,
  rateLimitDecision,
  windowStartOf,
} from '@ca/persistence';

/** The gateway's windows: one count per tenant and minute. */
export const GATEWAY_RATE_LIMIT_WINDOWS: RateLimitWindowTable = {
  table: 'gateway.rate_limit_windows',
  keyColumn: 'tenant_id',
};

/**
 * Per-tenant fixed-window rate limit, counted in gateway.rate_limit_windows so that every gateway
 * replica shares one count: each request adds one in an upsert and gets the new count. A tenant's
 * requests that arrive while its upsert is in flight share the next one (IncrementBatcher).
 */
export class RateLimiter {
  private readonly counts = new IncrementBatcher<{ tenantId: string; windowStart: number }>(
    (window, amount) => this.windows.add(window.tenantId, new Date(window.windowStart), amount),
    (window) => `${window.tenantId} ${window.windowStart}`,
  );

  constructor(
    private readonly windows: RateLimitWindowStore,
    readonly limitPerMinute: number,
    private readonly now: () => number = Date.now,
  ) {}

  async consume(tenantId: string): Promise<RateLimitDecision> {
    const now = this.now();
    const windowStart = windowStartOf(now);
    const count = await this.counts.increment({ tenantId, windowStart });
    return rateLimitDecision(this.limitPerMinute, count, windowStart, now);
  }

  /** Deletes windows that can no longer be counted in. */
  async removeOldWindows(): Promise<void> {
    await this.windows.removeOld(this.now());
  }
}
