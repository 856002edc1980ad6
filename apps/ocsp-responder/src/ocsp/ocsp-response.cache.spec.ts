import { CachedOcspResponse, OcspResponseCache } from './ocsp-response.cache';

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
    const cache = new OcspResponseCache(2);
    cache.set('a', entry('a1'));
    const newer = entry('a2');
    cache.set('a', newer);
    expect(cache.size).toBe(1);
    expect(cache.get('a')).toBe(newer);
  });

  it('evicts the least recently used entry beyond its capacity', () => {
    const cache = new OcspResponseCache(2);
    cache.set('a', entry('a'));
    cache.set('b', entry('b'));
    cache.set('c', entry('c'));
    expect(cache.size).toBe(2);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('b')).toBeDefined();
    expect(cache.get('c')).toBeDefined();
  });

  it('counts a read as a use: a recently read entry survives the next eviction', () => {
    const cache = new OcspResponseCache(2);
    cache.set('a', entry('a'));
    cache.set('b', entry('b'));
    expect(cache.get('a')).toBeDefined();
    cache.set('c', entry('c'));
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBeDefined();
    expect(cache.get('c')).toBeDefined();
  });

  it('counts a re-set as a use too', () => {
    const cache = new OcspResponseCache(2);
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

  it('holds up to the default capacity of 20 000 entries', () => {
    const cache = new OcspResponseCache();
    const shared = entry('x');
    for (let i = 0; i < 20_001; i++) cache.set(String(i), shared);
    expect(cache.size).toBe(20_000);
    expect(cache.get('0')).toBeUndefined();
    expect(cache.get('20000')).toBe(shared);
  });
});
