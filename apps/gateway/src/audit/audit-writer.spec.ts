import { AuditEntryInput } from './audit-chain';
import { AuditWriter } from './audit-writer';
import { AuditStore } from './audit.store';

const entry = (n: number): AuditEntryInput => ({
  occurredAt: new Date(0),
  tenantId: null,
  principal: null,
  action: 'route.unknown',
  resource: '/',
  result: 404,
  code: null,
  requestId: `req-${n}`,
});

const logger = { warn: jest.fn(), error: jest.fn() };

describe('AuditWriter', () => {
  it('writes entries in the order recorded, in batches, one batch at a time', async () => {
    const written: string[][] = [];
    let concurrent = 0;
    let maxConcurrent = 0;
    const append = jest.fn(async (batch: AuditEntryInput[]) => {
      concurrent++;
      maxConcurrent = Math.max(maxConcurrent, concurrent);
      await new Promise((r) => setTimeout(r, 5));
      written.push(batch.map((e) => e.requestId));
      concurrent--;
      return [];
    });
    const writer = new AuditWriter({ append } as unknown as AuditStore, logger, { batchSize: 3 });
    for (let n = 1; n <= 7; n++) writer.record(entry(n));
    await writer.flush();
    expect(written.flat()).toEqual(['req-1', 'req-2', 'req-3', 'req-4', 'req-5', 'req-6', 'req-7']);
    expect(Math.max(...written.map((b) => b.length))).toBeLessThanOrEqual(3);
    expect(maxConcurrent).toBe(1);
  });

  it('retries a failed write and loses nothing', async () => {
    const written: string[] = [];
    const append = jest
      .fn()
      .mockRejectedValueOnce(new Error('Connection terminated unexpectedly'))
      .mockImplementation(async (batch: AuditEntryInput[]) => written.push(...batch.map((e) => e.requestId)));
    const writer = new AuditWriter({ append } as unknown as AuditStore, logger, { retryDelayMs: 1 });
    writer.record(entry(1));
    writer.record(entry(2));
    await writer.flush();
    expect(written).toEqual(['req-1', 'req-2']);
    expect(logger.warn).toHaveBeenCalled();
  });

  it('sets a poison entry aside with its reason and writes the entries after it', async () => {
    const written: string[] = [];
    const deadLetters: { requestId: string; reason: string }[] = [];
    const refused = Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00'), {
      code: '22021',
    });
    const append = jest.fn(async (batch: AuditEntryInput[]) => {
      if (batch.some((e) => e.requestId === 'req-2')) throw refused;
      written.push(...batch.map((e) => e.requestId));
      return [];
    });
    const deadLetter = jest.fn(async (e: AuditEntryInput, reason: string) => {
      deadLetters.push({ requestId: e.requestId, reason });
    });
    const writer = new AuditWriter({ append, deadLetter } as unknown as AuditStore, logger, {
      retryDelayMs: 1,
    });
    for (let n = 1; n <= 4; n++) writer.record(entry(n));
    await writer.flush();
    writer.record(entry(5));
    await writer.flush();
    expect(written).toEqual(['req-1', 'req-3', 'req-4', 'req-5']);
    expect(deadLetters).toEqual([{ requestId: 'req-2', reason: expect.stringContaining('0x00') }]);
  });

  it('keeps retrying, without setting anything aside, while the database is away', async () => {
    const written: string[] = [];
    const away = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    const append = jest
      .fn()
      .mockRejectedValueOnce(away)
      .mockRejectedValueOnce(away)
      .mockImplementation(async (batch: AuditEntryInput[]) => written.push(...batch.map((e) => e.requestId)));
    const deadLetter = jest.fn();
    const writer = new AuditWriter({ append, deadLetter } as unknown as AuditStore, logger, {
      retryDelayMs: 1,
    });
    writer.record(entry(1));
    await writer.flush();
    expect(written).toEqual(['req-1']);
    expect(deadLetter).not.toHaveBeenCalled();
  });
});
