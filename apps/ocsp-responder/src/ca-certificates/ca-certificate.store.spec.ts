import { randomUUID } from 'node:crypto';
import { createTestPki } from '@ca/pki/testing';
import type { DataSource } from 'typeorm';
import { CA_CACHE_MS, CaCertificateStore } from './ca-certificate.store';

/** A database where no tenant has a CA yet; counts the reads. */
function emptyDatabase() {
  const reads: string[] = [];
  const dataSource = {
    query: async (_sql: string, params: string[]) => {
      reads.push(params[0]);
      return [];
    },
  } as unknown as DataSource;
  return { reads, store: new CaCertificateStore(dataSource) };
}

describe('CaCertificateStore.findOrWait', () => {
  // The store's clock and its polls run on Jest's fake timers: what is waited for is the store's
  // own deadline, whatever the machine's load (I/O callbacks and microtasks stay real).
  beforeEach(() => jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] }));
  afterEach(() => jest.useRealTimers());

  it('waits for a CA not published yet, and requests for one tenant share one wait', async () => {
    const { reads, store } = emptyDatabase();
    const tenant = randomUUID();
    let answered = false;
    const both = Promise.all([store.findOrWait(tenant, 300), store.findOrWait(tenant, 300)]).finally(
      () => (answered = true),
    );
    await jest.advanceTimersByTimeAsync(299);
    expect(answered).toBe(false);
    await jest.advanceTimersByTimeAsync(1);
    const answers = await both;
    expect(answers).toEqual([undefined, undefined]);
    // Two first reads, then one wait reading every 100 ms (not two).
    expect(reads.length).toBeLessThanOrEqual(2 + 4);
  });

  it('waits for at most 32 tenants at once: the next unknown tenant gets its answer at once', async () => {
    const { store } = emptyDatabase();
    const waiting = Array.from({ length: 32 }, () => store.findOrWait(randomUUID(), 300));
    await new Promise((resolve) => setImmediate(resolve));
    let answered = false;
    const next = store.findOrWait(randomUUID(), 300).finally(() => (answered = true));
    // No time passes: only its own read stands between the 33rd tenant and its answer.
    await new Promise((resolve) => setImmediate(resolve));
    expect(answered).toBe(true);
    expect(await next).toBeUndefined();
    await jest.advanceTimersByTimeAsync(300);
    await Promise.all(waiting);
  });

  it('does not wait for a tenant id that is no UUID', async () => {
    const { reads, store } = emptyDatabase();
    expect(await store.findOrWait('not-a-tenant', 300)).toBeUndefined();
    expect(reads).toEqual([]);
  });
});

describe('CaCertificateStore.find while the database is away', () => {
  it("keeps serving the tenant's CA certificate it read before, past the usual re-read, when the database refuses the responder", async () => {
    const { caDer } = await createTestPki();
    let failure: Error | undefined;
    const dataSource = {
      query: async (sql: string) => {
        if (failure) throw failure;
        if (sql.includes('FROM ocsp.added_cas')) return [];
        const caId = randomUUID();
        return [
          {
            ca_id: caId,
            certificate_der: Buffer.from(caDer),
            root_certificate_der: null,
            root_ca_id: null,
            published_at: new Date(),
            external_root: false,
          },
        ];
      },
    } as unknown as DataSource;
    const store = new CaCertificateStore(dataSource);
    const tenant = randomUUID();
    const read = await store.find(tenant);
    expect(read?.der.equals(Buffer.from(caDer))).toBe(true);
    failure = Object.assign(new Error('permission denied for database'), { code: '42501' });
    jest.useFakeTimers({ now: Date.now() + CA_CACHE_MS + 1_000, doNotFake: ['setImmediate', 'nextTick'] });
    try {
      expect(await store.find(tenant)).toBe(read);
      // One it never read: the outage goes on to the 503.
      await expect(store.find(randomUUID())).rejects.toMatchObject({ code: '42501' });
      // An error that is no outage is not hidden.
      failure = Object.assign(new Error('syntax error'), { code: '42601' });
      await expect(store.find(tenant)).rejects.toMatchObject({ code: '42601' });
    } finally {
      jest.useRealTimers();
    }
  });
});
