import {
  FIRST_RESTART_DELAY_MS,
  MAX_RESTART_DELAY_MS,
  MAX_START_FAILURES,
  STABLE_AFTER_MS,
  WorkerRestarts,
} from './worker-restarts';

describe('WorkerRestarts', () => {
  it('gives up once every worker failed its first start (a configuration error)', () => {
    const restarts = new WorkerRestarts(2);
    expect(restarts.exited(false, 100)).toEqual({ action: 'restart', delayMs: FIRST_RESTART_DELAY_MS });
    expect(restarts.exited(false, 100)).toEqual({
      action: 'give-up',
      reason: 'every worker failed to start',
    });
  });

  it('gives up after start failures in a row once workers had started', () => {
    const restarts = new WorkerRestarts(2);
    restarts.started();
    restarts.started();
    restarts.exited(true, 5_000);
    for (let i = 1; i < MAX_START_FAILURES; i++) expect(restarts.exited(false, 100).action).toBe('restart');
    expect(restarts.exited(false, 100)).toMatchObject({ action: 'give-up' });
  });

  it('keeps restarting a worker that dies after it started, doubling the pause up to the maximum', () => {
    const restarts = new WorkerRestarts(2);
    restarts.started();
    const delays: number[] = [];
    for (let i = 0; i < 12; i++) {
      const decision = restarts.exited(true, 1_000);
      if (decision.action !== 'restart') throw new Error('gave up');
      delays.push(decision.delayMs);
      restarts.started();
    }
    expect(delays.slice(0, 3)).toEqual([500, 1_000, 2_000]);
    expect(Math.max(...delays)).toBe(MAX_RESTART_DELAY_MS);
  });

  it('restarts quickly again after a worker ran long enough', () => {
    const restarts = new WorkerRestarts(1);
    restarts.started();
    restarts.exited(true, 1_000);
    restarts.exited(true, 1_000);
    expect(restarts.exited(true, STABLE_AFTER_MS)).toEqual({
      action: 'restart',
      delayMs: FIRST_RESTART_DELAY_MS,
    });
  });

  it('a start failure between started workers does not give up', () => {
    const restarts = new WorkerRestarts(2);
    restarts.exited(false, 100);
    restarts.started();
    expect(restarts.exited(false, 100).action).toBe('restart');
  });
});
