import { DataSource } from 'typeorm';
import {
  DAY_MS,
  DEFAULT_RETENTION_INTERVAL_MS,
  EventRetention,
  FIRST_RETENTION_RUN_MS,
} from './event-retention';

describe('EventRetention schedule', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('runs a minute after start, then every interval, and not after stop', async () => {
    const retention = new EventRetention({} as DataSource, { retentionMs: 7 * DAY_MS });
    const runOnce = jest.spyOn(retention, 'runOnce').mockResolvedValue({ outbox: 0, inbox: 0, stream: 0 });
    retention.start();
    await jest.advanceTimersByTimeAsync(FIRST_RETENTION_RUN_MS - 1);
    expect(runOnce).not.toHaveBeenCalled();
    await jest.advanceTimersByTimeAsync(1);
    expect(runOnce).toHaveBeenCalledTimes(1);
    await jest.advanceTimersByTimeAsync(DEFAULT_RETENTION_INTERVAL_MS);
    expect(runOnce).toHaveBeenCalledTimes(2);
    await retention.stop();
    await jest.advanceTimersByTimeAsync(2 * DEFAULT_RETENTION_INTERVAL_MS);
    expect(runOnce).toHaveBeenCalledTimes(2);
  });

  it('runs every quarter of a short window (a benchmark), first after that quarter', async () => {
    const retention = new EventRetention({} as DataSource, { retentionMs: 2 * 60_000 });
    const runOnce = jest.spyOn(retention, 'runOnce').mockResolvedValue({ outbox: 0, inbox: 0, stream: 0 });
    retention.start();
    await jest.advanceTimersByTimeAsync(30_000);
    expect(runOnce).toHaveBeenCalledTimes(1);
    await jest.advanceTimersByTimeAsync(90_000);
    expect(runOnce).toHaveBeenCalledTimes(4);
    await retention.stop();
  });
});
