import { DataSource } from 'typeorm';
import { CertificateGroupCommit, CertificateToStore } from './certificate-group-commit';

const TENANT = '0a0a0a0a-0000-4000-8000-000000000001';

/** A data source whose n-th transaction fails with outcomes[n] (undefined: it commits). */
function scriptedDataSource(outcomes: (Error | undefined)[]) {
  let transactions = 0;
  const dataSource = {
    transaction: async (work: (manager: unknown) => Promise<unknown>) => {
      const failure = outcomes[transactions++];
      if (failure) throw failure;
      // Every statement answers the tenant's standing read (the lock's answer is not looked at).
      return work({
        query: async () => [{ tenant_id: TENANT, status: null, certificate_limit: null, active: 0 }],
      });
    },
  } as unknown as DataSource;
  return { dataSource, transactions: () => transactions };
}

const item = (n: number): CertificateToStore =>
  ({
    certificate: { tenantId: TENANT, id: String(n) },
    event: { id: String(n) },
  }) as unknown as CertificateToStore;

/** Three stores: the first alone, the two that arrive while it is in flight as one batch. */
function storeThree(groupCommit: CertificateGroupCommit) {
  return Promise.allSettled([1, 2, 3].map((n) => groupCommit.store(item(n))));
}

const duplicate = () => Object.assign(new Error('duplicate key'), { code: '23505' });

describe('CertificateGroupCommit when a batch fails', () => {
  it('stores the batch again one by one after an error of its data, so only the bad row fails', async () => {
    const { dataSource, transactions } = scriptedDataSource([undefined, duplicate(), duplicate(), undefined]);
    const outcomes = await storeThree(new CertificateGroupCommit(dataSource, () => undefined, 1000));
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(transactions()).toBe(4);
  });

  it('fails the whole batch at once, storing nothing again, when the database is away', async () => {
    const unavailable = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    const { dataSource, transactions } = scriptedDataSource([undefined, unavailable]);
    const outcomes = await storeThree(new CertificateGroupCommit(dataSource, () => undefined, 1000));
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'rejected']);
    expect((outcomes[1] as PromiseRejectedResult).reason).toBe(unavailable);
    expect(transactions()).toBe(2);
  });

  it('tells that events were recorded only after a commit that stored something', async () => {
    let nudges = 0;
    const { dataSource } = scriptedDataSource([duplicate()]);
    const groupCommit = new CertificateGroupCommit(dataSource, () => nudges++, 1000);
    await expect(groupCommit.store(item(1))).rejects.toThrow('duplicate key');
    expect(nudges).toBe(0);
    await groupCommit.store(item(2));
    expect(nudges).toBe(1);
  });
});

describe('CertificateGroupCommit publishing to the responder first (read-your-writes)', () => {
  const unconfirmed = () => new Error('not confirmed');

  it('stores nothing of a batch the responder did not confirm, and fails every caller', async () => {
    const { dataSource, transactions } = scriptedDataSource([]);
    const groupCommit = new CertificateGroupCommit(
      dataSource,
      () => undefined,
      1000,
      () => Promise.reject(unconfirmed()),
      unconfirmed,
    );
    const outcomes = await storeThree(groupCommit);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(transactions()).toBe(0);
  });

  it('stores the others when the responder left one out (its CA not published there yet)', async () => {
    const { dataSource, transactions } = scriptedDataSource([]);
    const published: string[][] = [];
    const groupCommit = new CertificateGroupCommit(
      dataSource,
      () => undefined,
      1000,
      async (events) => {
        published.push(events.map((event) => event.id));
        return new Set(['2']);
      },
      unconfirmed,
    );
    const outcomes = await storeThree(groupCommit);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[1] as PromiseRejectedResult).reason).toEqual(unconfirmed());
    expect(published).toEqual([['1'], ['2', '3']]);
    expect(transactions()).toBe(2);
  });

  it('withdraws what it published but did not store, before the caller hears of it; not a serial stored already', async () => {
    const unavailable = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    const broken = Object.assign(new Error('value too long'), { code: '22001' });
    // 1 commits; the batch of 2 and 3 fails on its data, then 2 fails again (another error) and 3
    // is a serial stored already; then 4 meets the database away.
    const { dataSource } = scriptedDataSource([undefined, broken, broken, duplicate(), unavailable]);
    const withdrawn: string[] = [];
    let withdrawnBeforeAnswer = true;
    const groupCommit = new CertificateGroupCommit(
      dataSource,
      () => undefined,
      1000,
      async () => new Set(),
      unconfirmed,
      undefined,
      async (events) => void withdrawn.push(...events.map((event) => event.id)),
    );
    const answered = (n: number) =>
      groupCommit.store(item(n)).catch((error: unknown) => {
        if (!withdrawn.includes(String(n)) && n !== 3) withdrawnBeforeAnswer = false;
        throw error;
      });
    const outcomes = await Promise.allSettled([1, 2, 3].map(answered));
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'rejected']);
    await expect(answered(4)).rejects.toBe(unavailable);
    expect(withdrawn).toEqual(['2', '4']);
    expect(withdrawnBeforeAnswer).toBe(true);
  });
});
