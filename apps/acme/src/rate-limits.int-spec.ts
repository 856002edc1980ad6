import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { Logger } from '@ca/observability';
import { SqlRateLimitWindowStore, openSchemaDataSource } from '@ca/persistence';
import { TestDatabase, createTestDatabase, databaseKinds } from '@ca/persistence/testing';
import { DataSource } from 'typeorm';
import { ACME_SCHEMA } from './acme.schema';
import { EabKeySealer } from './eab/eab-key-sealer';
import { AcmeHousekeeping } from './housekeeping';
import { acmeMigrations } from './migrations';
import { SharedAcmeRateLimiter } from './protocol/acme-rate-limiter';
import { ACME_RATE_LIMIT_WINDOWS } from './stores/acme-database.store';
import { OrderStore } from './stores/order.store';
import { NonceStore } from './protocol/nonce-store';
import { SharedSpentNonces } from './stores/spent-nonce.store';

jest.setTimeout(60_000);

const MINUTE = 60_000;

/** A replica's rate-limit windows on its pool. */
const windowsOn = (pool: DataSource) => new SqlRateLimitWindowStore(pool, ACME_RATE_LIMIT_WINDOWS);

describe.each(databaseKinds())('ACME rate limits shared by replicas (%s database)', (kind) => {
  let database: TestDatabase;
  // Two replicas: each its own pool and limiter, one database.
  let replicas: DataSource[];
  let now = Date.UTC(2031, 0, 1, 10, 30);
  const clock = () => now;

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    const sealer = new EabKeySealer(randomBytes(32));
    const open = () =>
      openSchemaDataSource({
        url: database.url,
        schema: ACME_SCHEMA,
        entities: [],
        migrations: acmeMigrations(sealer),
      });
    replicas = [await open(), await open()];
  });

  afterAll(async () => {
    await Promise.all((replicas ?? []).map((replica) => replica.destroy()));
    await database?.drop();
  });

  const windows = async (key: string) =>
    (
      (await replicas[0].query(
        'SELECT window_start, count FROM acme.rate_limit_windows WHERE key = $1 ORDER BY window_start',
        [key],
      )) as { window_start: Date; count: number }[]
    ).map((row) => [row.window_start.getTime() - now, Number(row.count)]);

  it('counts one limit across replicas: 3 on one and 3 on the other, the 6th is refused until the window ends', async () => {
    now += 20_000;
    const [a, b] = replicas.map((replica) => new SharedAcmeRateLimiter(windowsOn(replica), undefined, clock));
    // A's three arrive together (one upsert, then one for the two that waited on it).
    expect(await Promise.all([1, 2, 3].map(() => a.take('account:shared', 5)))).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
    expect(await b.take('account:shared', 5)).toBeUndefined();
    expect(await b.take('account:shared', 5)).toBeUndefined();
    expect(await b.take('account:shared', 5)).toBe(40);
    expect(await a.take('account:shared', 5)).toBe(40);
    expect(await windows('account:shared')).toEqual([[-20_000, 7]]);
  });

  it('lets exactly the limit through when both replicas are asked at once', async () => {
    const [a, b] = replicas.map((replica) => new SharedAcmeRateLimiter(windowsOn(replica), undefined, clock));
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => (i % 2 ? a : b).take('tenant:busy', 5)),
    );
    expect(answers.filter((wait) => wait === undefined)).toHaveLength(5);
  });

  it('starts the next minute from zero', async () => {
    const [a, b] = replicas.map((replica) => new SharedAcmeRateLimiter(windowsOn(replica), undefined, clock));
    for (let i = 0; i < 3; i++) await a.take('orders:next', 2);
    expect(await b.take('orders:next', 2)).toBeGreaterThan(0);
    now = Math.floor(now / MINUTE) * MINUTE + MINUTE;
    expect(await b.take('orders:next', 2)).toBeUndefined();
    expect(await windows('orders:next')).toEqual([
      [-MINUTE, 4],
      [0, 1],
    ]);
  });

  it("deletes, in acme's housekeeping, the windows that ended more than a minute ago", async () => {
    const limiter = new SharedAcmeRateLimiter(windowsOn(replicas[1]), undefined, clock);
    const start = Math.floor(now / MINUTE) * MINUTE + 10 * MINUTE;
    for (let minute = 0; minute < 4; minute++) {
      now = start + minute * MINUTE + 5_000;
      // A limit of 5 leases nothing ahead: each request is counted as it comes.
      await limiter.take('source:t:192.0.2.1', 5);
    }
    const logger = { debug: jest.fn(), warn: jest.fn() } as unknown as Logger;
    const housekeeping = new AcmeHousekeeping(
      new NonceStore(randomBytes(32), new SharedSpentNonces(replicas[1])),
      new OrderStore(replicas[1]),
      limiter,
      logger,
    );
    await housekeeping.sweep();
    expect(logger.warn).not.toHaveBeenCalled();
    // Kept: the current window and the two before it (a replica's clock may lag a little).
    expect(await windows('source:t:192.0.2.1')).toEqual([
      [-2 * MINUTE - 5_000, 1],
      [-MINUTE - 5_000, 1],
      [-5_000, 1],
    ]);
    const left: { n: number }[] = await replicas[0].query(
      'SELECT count(*)::int AS n FROM acme.rate_limit_windows WHERE window_start < $1',
      [new Date(start + MINUTE)],
    );
    expect(left[0].n).toBe(0);
    expect(await limiter.removeOldWindows()).toBe(0);
  });
});
