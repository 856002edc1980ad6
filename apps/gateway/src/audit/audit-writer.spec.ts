import { AuditEntryInput } from './audit-chain';
import { AuditWriter } from './audit-writer';
import { AuditRepository } from './audit.repository';

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
    const writer = new AuditWriter({ append } as unknown as AuditRepository, logger, { batchSize: 3 });
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
      .mockRejectedValueOnce(new Error('connection lost'))
      .mockImplementation(async (batch: AuditEntryInput[]) => written.push(...batch.map((e) => e.requestId)));
    const writer = new AuditWriter({ append } as unknown as AuditRepository, logger, { retryDelayMs: 1 });
    writer.record(entry(1));
    writer.record(entry(2));
    await writer.flush();
    expect(written).toEqual(['req-1', 'req-2']);
    expect(logger.warn).toHaveBeenCalled();
  });
});
