import { RETRY_WINDOW_MS, nextAttemptAt } from './retry-schedule';

describe('retry schedule', () => {
  const created = new Date('2026-01-01T00:00:00Z');
  const at = (ms: number) => new Date(created.getTime() + ms);

  it('doubles the wait after each failed attempt, from the base', () => {
    expect(nextAttemptAt(1, created, created, 5_000)).toEqual(at(5_000));
    expect(nextAttemptAt(2, created, at(5_000), 5_000)).toEqual(at(15_000));
    expect(nextAttemptAt(3, created, at(15_000), 5_000)).toEqual(at(35_000));
  });

  it('waits at most an hour between attempts', () => {
    expect(nextAttemptAt(20, created, at(3_600_000), 5_000)).toEqual(at(7_200_000));
  });

  it('makes a last attempt at the end of the 24 hours, and none after', () => {
    const late = at(RETRY_WINDOW_MS - 60_000);
    expect(nextAttemptAt(30, created, late, 5_000)).toEqual(at(RETRY_WINDOW_MS));
    expect(nextAttemptAt(31, created, at(RETRY_WINDOW_MS), 5_000)).toBeUndefined();
  });
});
