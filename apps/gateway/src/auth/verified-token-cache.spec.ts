import { VerifiedTokenCache } from './verified-token-cache';

describe('VerifiedTokenCache', () => {
  it('gives a kept result until the second of exp, not from then on (RFC 7519 4.1.4)', () => {
    let now = 1_000_000;
    const cache = new VerifiedTokenCache<string>(10, () => now);
    cache.set('token', 'principal', 1_010);
    expect(cache.get('token')).toBe('principal');
    now = 1_009_999;
    expect(cache.get('token')).toBe('principal');
    now = 1_010_000;
    expect(cache.get('token')).toBeUndefined();
    now = 1_000_000; // the entry is gone, not just hidden
    expect(cache.get('token')).toBeUndefined();
  });

  it('drops the oldest entry when full', () => {
    const cache = new VerifiedTokenCache<number>(2, () => 0);
    cache.set('a', 1, 60);
    cache.set('b', 2, 60);
    cache.set('c', 3, 60);
    expect([cache.get('a'), cache.get('b'), cache.get('c')]).toEqual([undefined, 2, 3]);
  });

  it('does not keep very long tokens or a token without a usable exp', () => {
    const cache = new VerifiedTokenCache<number>(10, () => 0);
    cache.set('x'.repeat(5_000), 1, 60);
    cache.set('y', 2, Number.NaN);
    expect(cache.get('x'.repeat(5_000))).toBeUndefined();
    expect(cache.get('y')).toBeUndefined();
  });
});
