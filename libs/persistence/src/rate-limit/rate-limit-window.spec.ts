import { RATE_LIMIT_WINDOW_MS, rateLimitDecision, windowStartOf } from './rate-limit-window';

const WINDOW = Date.UTC(2025, 5, 1, 10, 30, 0);

describe('rate-limit windows and headers', () => {
  it('puts a moment into the one-minute window it falls in', () => {
    expect(windowStartOf(WINDOW)).toBe(WINDOW);
    expect(windowStartOf(WINDOW + 59_999)).toBe(WINDOW);
    expect(windowStartOf(WINDOW + 60_000)).toBe(WINDOW + RATE_LIMIT_WINDOW_MS);
  });

  it('allows up to the limit and counts remaining down to 0', () => {
    const at = WINDOW + 10_000;
    expect(rateLimitDecision(5, 1, WINDOW, at)).toMatchObject({
      allowed: true,
      headers: { 'RateLimit-Limit': '5', 'RateLimit-Remaining': '4' },
    });
    expect(rateLimitDecision(5, 5, WINDOW, at)).toMatchObject({
      allowed: true,
      headers: { 'RateLimit-Remaining': '0' },
    });
    expect(rateLimitDecision(5, 6, WINDOW, at)).toMatchObject({
      allowed: false,
      headers: { 'RateLimit-Remaining': '0' },
    });
    expect(rateLimitDecision(5, 60, WINDOW, at).headers['RateLimit-Remaining']).toBe('0');
  });

  it('gives the whole seconds left in the window as reset and Retry-After, from 60 down to 1', () => {
    expect(rateLimitDecision(5, 6, WINDOW, WINDOW).retryAfterSeconds).toBe(60);
    expect(rateLimitDecision(5, 1, WINDOW, WINDOW).headers['RateLimit-Reset']).toBe('60');
    expect(rateLimitDecision(5, 6, WINDOW, WINDOW + 10_000).retryAfterSeconds).toBe(50);
    // Part of a second left counts as a second: the caller must not retry too early.
    expect(rateLimitDecision(5, 6, WINDOW, WINDOW + 10_001).retryAfterSeconds).toBe(50);
    expect(rateLimitDecision(5, 6, WINDOW, WINDOW + 59_999).retryAfterSeconds).toBe(1);
    const decision = rateLimitDecision(5, 6, WINDOW, WINDOW + 42_500);
    expect(decision.headers['RateLimit-Reset']).toBe(String(decision.retryAfterSeconds));
  });

  it('states the policy: limit per 60-second window', () => {
    expect(rateLimitDecision(600, 1, WINDOW, WINDOW).headers['RateLimit-Policy']).toBe('600;w=60');
  });
});
