import { CachedOcspResponse, OcspResponseCache } from './ocsp-response.cache';

/** Room for exactly two of the small entries below (one-letter keys, names of up to 7 characters). */
const TWO_ENTRIES = 2 * (7 + 2 + 18 + 256);

function entry(name: string, reuseForMs = 60_000): CachedOcspResponse {
  const now = Date.now();
  return {
    der: Buffer.from(name),
    etag: `"${name}"`,
    thisUpdate: new Date(now),
    nextUpdate: new Date(now + reuseForMs + 900_000),
    reuseUntil: now + reuseForMs,
  };
}

describe('OcspResponseCache', () => {
  afterEach(() => jest.useRealTimers());

  it('returns what was stored under a key, and nothing for another key', () => {
    const cache = new OcspResponseCache();
    const a = entry('a');
    cache.set('a', a);
    expect(cache.get('a')).toBe(a);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.size).toBe(1);
  });

  it('replaces an entry set again under the same key without growing', () => {
    const cache = new OcspResponseCache(TWO_ENTRIES);
    cache.set('a', entry('a1'));
    const newer = entry('a2');
    cache.set('a', newer);
    expect(cache.size).toBe(1);
    expect(cache.get('a')).toBe(newer);
  });

  it('evicts the least recently used entry beyond its capacity', () => {
    const cache = new OcspResponseCache(TWO_ENTRIES);
    cache.set('a', entry('a'));
    cache.set('b', entry('b'));
    cache.set('c', entry('c'));
    expect(cache.size).toBe(2);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('b')).toBeDefined();
    expect(cache.get('c')).toBeDefined();
  });

  it('counts a read as a use: a recently read entry survives the next eviction', () => {
    const cache = new OcspResponseCache(TWO_ENTRIES);
    cache.set('a', entry('a'));
    cache.set('b', entry('b'));
    expect(cache.get('a')).toBeDefined();
    cache.set('c', entry('c'));
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBeDefined();
    expect(cache.get('c')).toBeDefined();
  });

  it('counts a re-set as a use too', () => {
    const cache = new OcspResponseCache(TWO_ENTRIES);
    cache.set('a', entry('a'));
    cache.set('b', entry('b'));
    cache.set('a', entry('a again'));
    cache.set('c', entry('c'));
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')?.etag).toBe('"a again"');
  });

  it('never returns an entry at or past its reuseUntil, and drops it', () => {
    jest.useFakeTimers({ now: new Date('2030-01-01T00:00:00Z') });
    const cache = new OcspResponseCache();
    cache.set('a', entry('a', 1_000));
    jest.setSystemTime(new Date('2030-01-01T00:00:00.999Z'));
    expect(cache.get('a')).toBeDefined();
    jest.setSystemTime(new Date('2030-01-01T00:00:01Z'));
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('is bounded in bytes: a flood of distinct entries never holds more than the bound', () => {
    const cache = new OcspResponseCache(1024 * 1024);
    const big = { ...entry('x'), der: Buffer.alloc(1000) };
    for (let i = 0; i < 10_000; i++) cache.set(`key ${i}`, big);
    expect(cache.bytes).toBeLessThanOrEqual(1024 * 1024);
    expect(cache.size).toBeLessThan(1100);
    expect(cache.size).toBeGreaterThan(700);
    expect(cache.get('key 0')).toBeUndefined();
    expect(cache.get('key 9999')).toBe(big);
  });

  it('keeps nothing larger than the whole bound, and nothing at all with a bound of 0', () => {
    const none = new OcspResponseCache(0);
    none.set('a', entry('a'));
    expect(none.size).toBe(0);
    expect(none.bytes).toBe(0);
  });
});
