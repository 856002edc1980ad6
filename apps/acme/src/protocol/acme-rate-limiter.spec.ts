import { MemoryRateLimitWindowStore } from '@ca/persistence';
import { AcmeProblem } from './acme-problem';
import { InMemoryAcmeRateLimiter, SharedAcmeRateLimiter } from './acme-rate-limiter';

const MINUTE = Date.UTC(2031, 0, 1, 10, 30);

describe('InMemoryAcmeRateLimiter', () => {
  it('lets `limit` requests of a key through per minute window, then says how long to wait', async () => {
    let now = MINUTE + 5_000;
    const limiter = new InMemoryAcmeRateLimiter(() => now);
    expect(await limiter.take('account:a', 2)).toBeUndefined();
    expect(await limiter.take('account:a', 2)).toBeUndefined();
    now = MINUTE + 15_000;
    expect(await limiter.take('account:a', 2)).toBe(45);
    expect(await limiter.take('account:b', 2)).toBeUndefined();
    now = MINUTE + 60_000;
    expect(await limiter.take('account:a', 2)).toBeUndefined();
  });
});

/** Windows in memory (as the table counts them) or failing with `failure`; `statements`: each upsert's key, window and amount. */
function fakeDatabase(failure?: Error) {
  const windows = new MemoryRateLimitWindowStore();
  windows.failure = failure;
  return { windows, statements: windows.added };
}

describe('SharedAcmeRateLimiter', () => {
  it('counts per key and minute window in the database and gives the seconds left past the limit', async () => {
    let now = MINUTE + 20_000;
    const { windows, statements } = fakeDatabase();
    const limiter = new SharedAcmeRateLimiter(windows, undefined, () => now);
    expect(await limiter.take('tenant:t', 1)).toBeUndefined();
    expect(await limiter.take('tenant:t', 1)).toBe(40);
    expect(statements[0]).toEqual(['tenant:t', new Date(MINUTE), 1]);
    now = MINUTE + 60_000;
    expect(await limiter.take('tenant:t', 1)).toBeUndefined();
  });

  it('adds the concurrent requests of one key in one statement, each getting its own count', async () => {
    const { windows, statements } = fakeDatabase();
    const limiter = new SharedAcmeRateLimiter(windows, undefined, () => MINUTE);
    const answers = await Promise.all([1, 2, 3, 4].map(() => limiter.take('orders:a', 2)));
    expect(answers).toEqual([undefined, undefined, 60, 60]);
    expect(statements.map((parameters) => parameters[2])).toEqual([1, 3]);
  });

  it('leases: one statement counts the next requests ahead, up to an eighth of what is left (at most 32)', async () => {
    const { windows, statements } = fakeDatabase();
    const limiter = new SharedAcmeRateLimiter(windows, undefined, () => MINUTE);
    for (let i = 0; i < 33; i++) expect(await limiter.take('tenant:t', 1200)).toBeUndefined();
    // The first request's statement counted it and 32 more: the 32 after it made none.
    expect(statements.map((parameters) => parameters[2])).toEqual([33]);
    expect(await limiter.take('tenant:t', 1200)).toBeUndefined();
    expect(statements.map((parameters) => parameters[2])).toEqual([33, 33]);
  });

  it('leases never let replicas together past the limit, and near it every request is counted', async () => {
    const { windows, statements } = fakeDatabase();
    const replicas = [1, 2, 3].map(() => new SharedAcmeRateLimiter(windows, undefined, () => MINUTE));
    let allowed = 0;
    for (let i = 0; i < 300; i++) {
      if ((await replicas[i % 3].take('source:t:192.0.2.1', 100)) === undefined) allowed++;
    }
    expect(allowed).toBeLessThanOrEqual(100);
    expect(allowed).toBeGreaterThanOrEqual(80);
    expect(statements.length).toBeLessThan(300);
    // Below eight left, no lease: each request is its own statement of one.
    expect(statements.slice(-5).map((parameters) => parameters[2])).toEqual([1, 1, 1, 1, 1]);
  });

  it('answers 503 serverInternal with Retry-After, and says so, when the database does not answer', async () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const { windows } = fakeDatabase(refused);
    const told: unknown[] = [];
    const limiter = new SharedAcmeRateLimiter(windows, (error) => told.push(error));
    const failure = await limiter.take('tenant:t', 10).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AcmeProblem);
    expect(failure).toMatchObject({ type: 'serverInternal', status: 503, headers: { 'retry-after': '5' } });
    expect(told).toEqual([refused]);
  });

  it('lets any other failure through, to be answered as the internal error it is', async () => {
    const { windows } = fakeDatabase(new Error('relation "acme.rate_limit_windows" does not exist'));
    const limiter = new SharedAcmeRateLimiter(windows);
    await expect(limiter.take('tenant:t', 10)).rejects.toThrow('does not exist');
  });
});
