/** How long an event is retried before it is recorded as failed. */
export const RETRY_WINDOW_MS = 24 * 3600 * 1000;
/** No wait between two attempts grows beyond this (so a receiver back after hours is not left waiting hours more). */
const MAX_DELAY_MS = 3600 * 1000;

/**
 * The wait after the `attempts`-th failed attempt: base, 2 × base, 4 × base, … (exponential
 * backoff), at most an hour; the last attempt is at the end of the retry window counted from the
 * event's creation. Undefined once that window has passed: the event is then failed.
 */
export function nextAttemptAt(
  attempts: number,
  createdAt: Date,
  now: Date,
  baseMs: number,
  windowMs = RETRY_WINDOW_MS,
): Date | undefined {
  const delay = Math.min(baseMs * 2 ** Math.min(Math.max(attempts - 1, 0), 30), MAX_DELAY_MS);
  const end = createdAt.getTime() + windowMs;
  if (now.getTime() >= end) return undefined;
  return new Date(Math.min(now.getTime() + delay, end));
}
