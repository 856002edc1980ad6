import {
  IncrementBatcher,
  RATE_LIMIT_WINDOW_MS,
  isDatabaseUnavailable,
  rateLimitDecision,
  windowStartOf,
} from '@ca/persistence';
import { DataSource } from 'typeorm';
import { AcmeProblem } from './acme-problem';

/**
 * ACME requests per key in fixed one-minute windows, aligned to the minute of the clock
 * (docs/operations.md, ACME). Keys: `tenant:<id>`, `source:<tenant>:<address>`, `account:<id>`,
 * `orders:<account>`.
 */
export interface AcmeRateLimiter {
  /** Counts one request of `key`; the seconds to wait (to the window's end) when it is past `limit`. */
  take(key: string, limit: number): Promise<number | undefined>;
}

/** Windows older than this (from the current one's start) are deleted by the housekeeping. */
const KEEP_WINDOWS_MS = 2 * RATE_LIMIT_WINDOW_MS;

/** Retry-After of the 503 answered while the database does not answer. */
const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/**
 * Counts in acme.rate_limit_windows, so every acme replica on the database shares one count per key
 * and window: one upsert per request, or per batch of a key's requests that arrive while its
 * upsert is in flight (IncrementBatcher). When the database does not answer, the request is refused
 * with a 503 serverInternal problem and Retry-After rather than served uncounted (or failed as a 500).
 */
export class SharedAcmeRateLimiter implements AcmeRateLimiter {
  private readonly counts = new IncrementBatcher<{ key: string; windowStart: number }>(
    (window, amount) => this.addToWindow(window.key, window.windowStart, amount),
    (window) => `${window.windowStart} ${window.key}`,
  );

  constructor(
    private readonly dataSource: DataSource,
    /** Told of each request refused because the database did not answer (a warning in the log). */
    private readonly onUnavailable: (error: unknown) => void = () => undefined,
    private readonly now: () => number = Date.now,
  ) {}

  async take(key: string, limit: number): Promise<number | undefined> {
    const now = this.now();
    const windowStart = windowStartOf(now);
    let count: number;
    try {
      count = await this.counts.increment({ key, windowStart });
    } catch (error) {
      if (!isDatabaseUnavailable(error)) throw error;
      this.onUnavailable(error);
      throw new AcmeProblem(
        'serverInternal',
        'the rate limits cannot be counted at the moment; retry later',
        503,
        { 'retry-after': String(UNAVAILABLE_RETRY_AFTER_SECONDS) },
      );
    }
    return retryAfter(limit, count, windowStart, now);
  }

  /** Deletes the windows that can no longer be counted in; the number deleted. */
  async removeOldWindows(): Promise<number> {
    const [, deleted] = (await this.dataSource.query(
      'DELETE FROM acme.rate_limit_windows WHERE window_start < $1',
      [new Date(windowStartOf(this.now()) - KEEP_WINDOWS_MS)],
    )) as [unknown[], number];
    return deleted;
  }

  private async addToWindow(key: string, windowStart: number, amount: number): Promise<number> {
    const [{ count }]: { count: number }[] = await this.dataSource.query(
      `INSERT INTO acme.rate_limit_windows AS w (key, window_start, count) VALUES ($1, $2, $3)
       ON CONFLICT (key, window_start) DO UPDATE SET count = w.count + $3
       RETURNING w.count`,
      [key, new Date(windowStart), amount],
    );
    return Number(count);
  }
}

/** Counts in this process's memory only: for unit tests, where there is no database. */
export class InMemoryAcmeRateLimiter implements AcmeRateLimiter {
  private windowStart = Number.NEGATIVE_INFINITY;
  private readonly counts = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  async take(key: string, limit: number): Promise<number | undefined> {
    const now = this.now();
    const windowStart = windowStartOf(now);
    if (windowStart !== this.windowStart) {
      this.windowStart = windowStart;
      this.counts.clear();
    }
    const count = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, count);
    return retryAfter(limit, count, windowStart, now);
  }
}

function retryAfter(limit: number, count: number, windowStart: number, now: number): number | undefined {
  const decision = rateLimitDecision(limit, count, windowStart, now);
  return decision.allowed ? undefined : decision.retryAfterSeconds;
}

/** ACME_RATE_LIMIT_*: requests per minute (docs/operations.md, ACME). */
export interface AcmeRateLimits {
  perTenant: number;
  perSource: number;
  perAccount: number;
  newOrdersPerAccount: number;
}
