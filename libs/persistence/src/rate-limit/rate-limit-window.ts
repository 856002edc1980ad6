/** Fixed windows of one minute, aligned to the minute of the clock (the gateway's and acme's rate limits). */
export const RATE_LIMIT_WINDOW_MS = 60_000;

export interface RateLimitDecision {
  allowed: boolean;
  /** `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset`, `RateLimit-Policy`: on every answer. */
  headers: Record<string, string>;
  /** Seconds until the window ends: the `Retry-After` of a refused request. */
  retryAfterSeconds: number;
}

/** The start of the window `nowMs` falls in. */
export function windowStartOf(nowMs: number): number {
  return Math.floor(nowMs / RATE_LIMIT_WINDOW_MS) * RATE_LIMIT_WINDOW_MS;
}

/**
 * The answer to the `count`-th request of a window (count includes this request): allowed while
 * count ≤ limit; remaining never below 0; reset in whole seconds to the window's end, at least 1
 * (draft-ietf-httpapi-ratelimit-headers).
 */
export function rateLimitDecision(
  limit: number,
  count: number,
  windowStartMs: number,
  nowMs: number,
): RateLimitDecision {
  const reset = Math.max(1, Math.ceil((windowStartMs + RATE_LIMIT_WINDOW_MS - nowMs) / 1000));
  return {
    allowed: count <= limit,
    headers: {
      'RateLimit-Limit': String(limit),
      'RateLimit-Remaining': String(Math.max(0, limit - count)),
      'RateLimit-Reset': String(reset),
      'RateLimit-Policy': `${limit};w=${RATE_LIMIT_WINDOW_MS / 1000}`,
    },
    retryAfterSeconds: reset,
  };
}
