import { AcmeRateLimiter } from './acme-rate-limiter';

describe('AcmeRateLimiter', () => {
  it('lets `limit` requests of a key through per window, then says how long to wait', () => {
    let now = 1_000_000;
    const limiter = new AcmeRateLimiter(60_000, () => now);
    expect(limiter.take('account:a', 2)).toBeUndefined();
    expect(limiter.take('account:a', 2)).toBeUndefined();
    now += 15_000;
    expect(limiter.take('account:a', 2)).toBe(45);
    expect(limiter.take('account:b', 2)).toBeUndefined();
    now += 45_000;
    expect(limiter.take('account:a', 2)).toBeUndefined();
  });
});
