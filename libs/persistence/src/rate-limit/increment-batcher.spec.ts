import { IncrementBatcher } from './increment-batcher';

/** A counter whose additions complete only when the test says so, recording each amount. */
function slowCounter() {
  const totals = new Map<string, number>();
  const calls: { key: string; amount: number; finish(error?: Error): void }[] = [];
  const addAndGet = (key: string, amount: number) =>
    new Promise<number>((resolve, reject) => {
      calls.push({
        key,
        amount,
        finish: (error) => {
          if (error) return reject(error);
          totals.set(key, (totals.get(key) ?? 0) + amount);
          resolve(totals.get(key)!);
        },
      });
    });
  return { calls, batcher: new IncrementBatcher<string>(addAndGet, (key) => key) };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('IncrementBatcher', () => {
  it('adds the first call at once and the calls that arrive meanwhile in one addition, each getting its own count', async () => {
    const { calls, batcher } = slowCounter();
    const first = batcher.increment('t');
    expect(calls.map((c) => c.amount)).toEqual([1]);
    const rest = [batcher.increment('t'), batcher.increment('t'), batcher.increment('t')];
    calls[0].finish();
    await expect(first).resolves.toBe(1);
    await tick();
    expect(calls.map((c) => c.amount)).toEqual([1, 3]);
    calls[1].finish();
    await expect(Promise.all(rest)).resolves.toEqual([2, 3, 4]);
  });

  it('keeps counters apart: another key does not wait for the first', () => {
    const { calls, batcher } = slowCounter();
    void batcher.increment('a');
    void batcher.increment('b');
    expect(calls.map((c) => [c.key, c.amount])).toEqual([
      ['a', 1],
      ['b', 1],
    ]);
  });

  it('fails every call of a failed addition, and the next calls start afresh', async () => {
    const { calls, batcher } = slowCounter();
    const first = batcher.increment('t');
    const second = batcher.increment('t');
    const third = batcher.increment('t');
    calls[0].finish();
    await first;
    await tick();
    calls[1].finish(new Error('database away'));
    await expect(second).rejects.toThrow('database away');
    await expect(third).rejects.toThrow('database away');
    const later = batcher.increment('t');
    expect(calls[2].amount).toBe(1);
    calls[2].finish();
    await expect(later).resolves.toBe(2);
  });
});
