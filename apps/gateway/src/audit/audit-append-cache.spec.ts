import { AuditAppendCache } from './audit-append-cache';

const range = (from: number, count: number) => Array.from({ length: count }, (_, i) => from + i);

describe('AuditAppendCache', () => {
  it('hands out a block’s ids in order and says when it has too few', () => {
    const cache = new AuditAppendCache();
    expect(cache.take(1)).toBeUndefined();
    cache.refilled(cache.refillStarts(), range(10, 3));
    expect(cache.take(2)).toEqual([10, 11]);
    expect(cache.take(2)).toBeUndefined();
    expect(cache.take(1)).toEqual([12]);
  });

  it('drops a block taken before a locked append took its ids, even when it comes back after', () => {
    const cache = new AuditAppendCache();
    cache.refilled(cache.refillStarts(), range(10, 5));
    cache.lockedIdsTaken(); // say ids 15 and 16, under the chains' locks
    expect(cache.take(1)).toBeUndefined();
    const late = cache.refillStarts();
    cache.lockedIdsTaken();
    cache.refilled(late, range(17, 5)); // started before the second locked append: dropped
    expect(cache.take(1)).toBeUndefined();
    cache.refilled(cache.refillStarts(), range(30, 2));
    expect(cache.take(2)).toEqual([30, 31]);
  });

  it('never hands out an id below one it handed out before (two blocks back out of order)', () => {
    const cache = new AuditAppendCache();
    const first = cache.refillStarts();
    const second = cache.refillStarts();
    cache.refilled(second, range(20, 3));
    expect(cache.take(1)).toEqual([20]);
    cache.refilled(first, range(10, 3));
    expect(cache.take(3)).toBeUndefined();
    expect(cache.take(2)).toEqual([21, 22]);
  });

  it('forgets heads it is told of, and everything after a failure', () => {
    const cache = new AuditAppendCache();
    cache.remember('a', { id: 1, hash: 'x' });
    cache.remember('b', { id: 2, hash: 'y' });
    cache.refilled(cache.refillStarts(), range(10, 2));
    cache.forget(['a']);
    expect(cache.headOf('a')).toBeUndefined();
    expect(cache.headOf('b')).toEqual({ id: 2, hash: 'y' });
    cache.clear();
    expect(cache.headOf('b')).toBeUndefined();
    expect(cache.take(1)).toBeUndefined();
  });
});
