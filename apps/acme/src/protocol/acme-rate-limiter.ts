/** Requests per window for one key; in memory, per replica (docs/operations.md, ACME). */
export class AcmeRateLimiter {
  private windowStart: number;
  private readonly counts = new Map<string, number>();

  constructor(
    private readonly windowMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {
    this.windowStart = now();
  }

  /** Counts one request; the seconds to wait when `key` is past `limit` in this window. */
  take(key: string, limit: number): number | undefined {
    const now = this.now();
    if (now - this.windowStart >= this.windowMs) {
      this.windowStart = now;
      this.counts.clear();
    }
    const count = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, count);
    if (count <= limit) return undefined;
    return Math.max(1, Math.ceil((this.windowStart + this.windowMs - now) / 1000));
  }
}

/** ACME_RATE_LIMIT_*: requests per minute (docs/operations.md, ACME). */
export interface AcmeRateLimits {
  perTenant: number;
  perSource: number;
  perAccount: number;
  newOrdersPerAccount: number;
}
