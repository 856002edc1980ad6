import { randomUUID } from 'node:crypto';
import { AuditEntryInput } from '../audit/audit-chain';

const MINUTE_MS = 60_000;
/** Source addresses tracked at most; beyond, the oldest window is closed early (its summary written). */
const MAX_ADDRESSES = 10_000;

interface FailureWindow {
  minute: number;
  /** Failed or refused attempts in this minute. */
  attempts: number;
  throttled: number;
}

export interface AuthFailureGate {
  throttled: boolean;
  retryAfterSeconds: number;
}

/**
 * Failed authentications per source address and minute (a fixed window, as the tenant rate
 * limit): past the limit the address gets 429 with Retry-After (RFC 6585 4) until the minute ends,
 * before its token is even looked at. Audited in aggregate: the first failure of a minute is
 * written as it happens (it is the call a person investigates), every later one is only counted,
 * and when the minute is over one entry with `occurrences` stands for them all. So a flood of bad
 * tokens writes at most two entries per address and minute. Per gateway process (docs/security.md).
 */
export class AuthFailureLimiter {
  private readonly windows = new Map<string, FailureWindow>();
  private sweeper?: NodeJS.Timeout;

  constructor(
    readonly limitPerMinute: number,
    private readonly audit: (entry: AuditEntryInput) => void,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether `address` is past its limit in the current minute. */
  check(address: string): AuthFailureGate {
    const window = this.current(address, false);
    const throttled = window !== undefined && window.attempts >= this.limitPerMinute;
    return { throttled, retryAfterSeconds: this.secondsToNextMinute() };
  }

  /**
   * Counts a failed (401) or refused (429) attempt; true when it is the first of the address's
   * minute and is to be audited on its own, false when the minute's summary entry will count it.
   */
  recordFailure(address: string, throttled: boolean): boolean {
    const window = this.current(address, true)!;
    window.attempts += 1;
    if (throttled) window.throttled += 1;
    return window.attempts === 1;
  }

  /** Writes the summaries of minutes that are over; every few seconds while running. */
  start(intervalMs = 5_000): void {
    this.sweeper = setInterval(() => this.closeWindows(false), intervalMs);
    this.sweeper.unref();
  }

  /** Writes every summary, the current minute's too (at shutdown). */
  stop(): void {
    if (this.sweeper) clearInterval(this.sweeper);
    this.closeWindows(true);
  }

  private current(address: string, create: boolean): FailureWindow | undefined {
    const minute = Math.floor(this.now() / MINUTE_MS);
    let window = this.windows.get(address);
    if (window && window.minute !== minute) {
      this.summarize(address, window);
      this.windows.delete(address);
      window = undefined;
    }
    if (!window && create) {
      if (this.windows.size >= MAX_ADDRESSES) {
        const [oldest] = this.windows;
        this.summarize(oldest[0], oldest[1]);
        this.windows.delete(oldest[0]);
      }
      window = { minute, attempts: 0, throttled: 0 };
      this.windows.set(address, window);
    }
    return window;
  }

  private closeWindows(all: boolean): void {
    const minute = Math.floor(this.now() / MINUTE_MS);
    for (const [address, window] of this.windows) {
      if (!all && window.minute === minute) continue;
      this.summarize(address, window);
      this.windows.delete(address);
    }
  }

  /** One entry for the attempts after the first (which was written on its own). */
  private summarize(address: string, window: FailureWindow): void {
    const counted = window.attempts - 1;
    if (counted <= 0) return;
    this.audit({
      occurredAt: new Date(window.minute * MINUTE_MS),
      tenantId: null,
      principal: null,
      action: 'auth.failures',
      resource: `source-address/${address}`,
      result: window.throttled > 0 ? 429 : 401,
      code: window.throttled > 0 ? 'RATE_LIMITED' : 'invalid_token',
      requestId: randomUUID(),
      occurrences: counted,
    });
  }

  private secondsToNextMinute(): number {
    const now = this.now();
    return Math.max(1, Math.ceil(((Math.floor(now / MINUTE_MS) + 1) * MINUTE_MS - now) / 1000));
  }
}
