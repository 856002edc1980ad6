import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { CaCertificateStore } from './ca-certificate.store';

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
  it('waits for a CA not published yet, and requests for one tenant share one wait', async () => {
    const { reads, store } = emptyDatabase();
    const tenant = randomUUID();
    const started = Date.now();
    const answers = await Promise.all([store.findOrWait(tenant, 300), store.findOrWait(tenant, 300)]);
    expect(answers).toEqual([undefined, undefined]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    // Two first reads, then one wait reading every 100 ms (not two).
    expect(reads.length).toBeLessThanOrEqual(2 + 4);
  });

  it('waits for at most 32 tenants at once: the next unknown tenant gets its answer at once', async () => {
    const { store } = emptyDatabase();
    const waiting = Array.from({ length: 32 }, () => store.findOrWait(randomUUID(), 300));
    await new Promise((resolve) => setImmediate(resolve));
    const started = Date.now();
    expect(await store.findOrWait(randomUUID(), 300)).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(100);
    await Promise.all(waiting);
  });

  it('does not wait for a tenant id that is no UUID', async () => {
    const { reads, store } = emptyDatabase();
    expect(await store.findOrWait('not-a-tenant', 300)).toBeUndefined();
    expect(reads).toEqual([]);
  });
});
