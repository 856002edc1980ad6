/** A verified token's result, kept until the token expires. */
interface Entry<T> {
  value: T;
  /** The token's `exp`, in milliseconds: from then on it is verified (and refused) again. */
  expiresAtMs: number;
}

/** Far above the live admin tokens of a deployment; bounds the memory a flood of tokens can take. */
const MAX_ENTRIES = 1_000;
/** Longer tokens are verified every time rather than kept (at most MAX_ENTRIES × this in memory). */
const MAX_CACHED_TOKEN_LENGTH = 4 * 1024;

/**
 * What verifying a token gave, by the token's exact text, until its `exp` (RFC 7519 4.1.4: not
 * accepted on or after it). Bounded: when full, the oldest entry goes first.
 */
export class VerifiedTokenCache<T> {
  private readonly entries = new Map<string, Entry<T>>();

  constructor(
    private readonly maxEntries = MAX_ENTRIES,
    private readonly now: () => number = Date.now,
  ) {}

  get(token: string): T | undefined {
    const entry = this.entries.get(token);
    if (!entry) return undefined;
    if (this.now() >= entry.expiresAtMs) {
      this.entries.delete(token);
      return undefined;
    }
    return entry.value;
  }

  /** Keeps a verified token's result; `exp` in seconds since the epoch, as in the token. */
  set(token: string, value: T, exp: number): void {
    if (token.length > MAX_CACHED_TOKEN_LENGTH || !Number.isFinite(exp)) return;
    this.entries.delete(token);
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(token, { value, expiresAtMs: exp * 1000 });
  }

  delete(token: string): void {
    this.entries.delete(token);
  }
}
