import {
  IncrementBatcher,
  RateLimitWindowStore,
  isDatabaseUnavailable,
  rateLimitDecision,
  windowStartOf,
} from '@ca/persistence';
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

/** Retry-After of the 503 answered while the database does not answer. */
const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/** A lease is at most this many requests, and at most this fraction of what is left of the limit. */
const MAX_LEASE = 32;
const LEASE_FRACTION = 8;
/** Keys whose leases a replica remembers; past that the oldest is forgotten (its lease unused). */
const MAX_LEASED_KEYS = 10_000;

interface Lease {
  windowStart: number;
  /** Requests this replica may still let through in the window without counting again. */
  left: number;
  /** The window's shared count when this replica last added to it. */
  lastCount: number;
}

/**
 * Counts in acme.rate_limit_windows, so every acme replica on the database shares one count per key
 * and window. An upsert adds the requests that arrived while the key's previous upsert was in flight
 * (IncrementBatcher) plus a lease: up to an eighth of what the limit still allows (at most 32), which
 * this replica then lets through without a statement. A leased request was counted in the shared row
 * before it came, so replicas together never let more than the limit through; a lease left unused
 * at the window's end only makes the limit bite a little early. Near the limit the lease is zero and
 * every request is counted on its own, as without leases.
 *
 * When the database does not answer, the request is refused with a 503 serverInternal problem and
 * Retry-After rather than served uncounted (or failed as a 500).
 */
export class SharedAcmeRateLimiter implements AcmeRateLimiter {
  private readonly counts = new IncrementBatcher<{ key: string; windowStart: number; limit: number }>(
    (window, amount) => this.addToWindow(window, amount),
    (window) => `${window.windowStart} ${window.key}`,
  );
  private readonly leases = new Map<string, Lease>();

  constructor(
    private readonly windows: RateLimitWindowStore,
    /** Told of each request refused because the database did not answer (a warning in the log). */
    private readonly onUnavailable: (error: unknown) => void = () => undefined,
    private readonly now: () => number = Date.now,
  ) {}

  async take(key: string, limit: number): Promise<number | undefined> {
    const now = this.now();
    const windowStart = windowStartOf(now);
    const lease = this.leases.get(key);
    if (lease && lease.windowStart === windowStart && lease.left > 0) {
      lease.left--;
      return undefined;
    }
    let count: number;
    try {
      count = await this.counts.increment({ key, windowStart, limit });
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
  removeOldWindows(): Promise<number> {
    return this.windows.removeOld(this.now());
  }

  /**
   * Adds `amount` requests and this replica's next lease to the window; answers the count as of
   * the requests (the lease's share comes after them).
   */
  private async addToWindow(
    window: { key: string; windowStart: number; limit: number },
    amount: number,
  ): Promise<number> {
    const { key, windowStart, limit } = window;
    const held = this.leases.get(key);
    const current = held?.windowStart === windowStart ? held : undefined;
    const lastCount = current?.lastCount ?? 0;
    const extra = Math.max(0, Math.min(MAX_LEASE, Math.floor((limit - lastCount - amount) / LEASE_FRACTION)));
    const total = await this.windows.add(key, new Date(windowStart), amount + extra);
    const counted = total - extra;
    // The lease's requests are the ones after the batch's, as far as the limit still allows.
    const granted = Math.max(0, Math.min(extra, limit - counted));
    const lease = this.leases.get(key);
    if (lease?.windowStart === windowStart) {
      lease.left += granted;
      lease.lastCount = Math.max(lease.lastCount, total);
    } else {
      this.leases.delete(key);
      if (this.leases.size >= MAX_LEASED_KEYS) this.leases.delete(this.leases.keys().next().value as string);
      this.leases.set(key, { windowStart, left: granted, lastCount: total });
    }
    return counted;
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
