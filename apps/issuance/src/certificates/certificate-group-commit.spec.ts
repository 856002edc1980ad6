import type { EventEnvelope } from '@ca/contracts';
import type { IssuanceDatabase, IssuanceTables } from '../issuance-database.store';
import { MemoryCertificateStore, MemoryOutboxStore, MemoryTenantStandingStore } from '../memory-stores';
import { CertificateGroupCommit, CertificateToStore } from './certificate-group-commit';

const TENANT = '0a0a0a0a-0000-4000-8000-000000000001';

/** A database whose n-th transaction fails with outcomes[n] (undefined: it commits). */
function scriptedDatabase(outcomes: (Error | undefined)[]) {
  let transactions = 0;
  // The tenant is unknown to the projection and has no certificates: the default limit holds.
  const tables = {
    tenants: new MemoryTenantStandingStore(),
    certificates: new MemoryCertificateStore(),
    outbox: new MemoryOutboxStore(),
  } as unknown as IssuanceTables;
  const database = {
    transaction: async <T>(work: (tables: IssuanceTables) => Promise<T>): Promise<T> => {
      const failure = outcomes[transactions++];
      if (failure) throw failure;
      return work(tables);
    },
  } as unknown as IssuanceDatabase;
  return { database, transactions: () => transactions };
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
    const { database, transactions } = scriptedDatabase([undefined, duplicate(), duplicate(), undefined]);
    const outcomes = await storeThree(
      new CertificateGroupCommit({ database, onCommitted: () => undefined, defaultCertificateLimit: 1000 }),
    );
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(transactions()).toBe(4);
  });

  it('fails the whole batch at once, storing nothing again, when the database is away', async () => {
    const unavailable = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    const { database, transactions } = scriptedDatabase([undefined, unavailable]);
    const outcomes = await storeThree(
      new CertificateGroupCommit({ database, onCommitted: () => undefined, defaultCertificateLimit: 1000 }),
    );
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'rejected']);
    expect((outcomes[1] as PromiseRejectedResult).reason).toBe(unavailable);
    expect(transactions()).toBe(2);
  });

  it('tells that events were recorded only after a commit that stored something', async () => {
    let nudges = 0;
    const { database } = scriptedDatabase([duplicate()]);
    const groupCommit = new CertificateGroupCommit({
      database,
      onCommitted: () => nudges++,
      defaultCertificateLimit: 1000,
    });
    await expect(groupCommit.store(item(1))).rejects.toThrow('duplicate key');
    expect(nudges).toBe(0);
    await groupCommit.store(item(2));
    expect(nudges).toBe(1);
  });
});

describe('CertificateGroupCommit publishing to the responder first (read-your-writes)', () => {
  const unconfirmed = () => new Error('not confirmed');

  it('stores nothing of a batch the responder did not confirm, and fails every caller', async () => {
    const { database, transactions } = scriptedDatabase([]);
    const groupCommit = new CertificateGroupCommit({
      database,
      onCommitted: () => undefined,
      defaultCertificateLimit: 1000,
      publish: () => Promise.reject(unconfirmed()),
      unconfirmed,
    });
    const outcomes = await storeThree(groupCommit);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(transactions()).toBe(0);
  });

  it('stores the others when the responder left one out (its CA not published there yet)', async () => {
    const { database, transactions } = scriptedDatabase([]);
    const published: string[][] = [];
    const groupCommit = new CertificateGroupCommit({
      database,
      onCommitted: () => undefined,
      defaultCertificateLimit: 1000,
      publish: async (events) => {
        published.push(events.map((event) => event.id));
        return new Set(['2']);
      },
      unconfirmed,
    });
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
    const { database } = scriptedDatabase([undefined, broken, broken, duplicate(), unavailable]);
    const withdrawn: string[] = [];
    let withdrawnBeforeAnswer = true;
    const groupCommit = new CertificateGroupCommit({
      database,
      onCommitted: () => undefined,
      defaultCertificateLimit: 1000,
      publish: async () => new Set(),
      unconfirmed,
      withdraw: async (events) => void withdrawn.push(...events.map((event) => event.id)),
    });
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

/** A group commit that gathers announced certificates for up to 50 ms. */
function gathering(
  database: IssuanceDatabase,
  publish: (events: EventEnvelope[]) => Promise<ReadonlySet<string>> = async () => new Set(),
) {
  return new CertificateGroupCommit({
    database,
    onCommitted: () => undefined,
    defaultCertificateLimit: 1000,
    publish,
    gatherMs: 50,
  });
}

describe('CertificateGroupCommit gathering the certificates announced (commit siblings)', () => {
  afterEach(() => jest.useRealTimers());

  it('stores a lone certificate at once: nothing else is announced, so nothing is waited for', async () => {
    jest.useFakeTimers();
    const { database, transactions } = scriptedDatabase([]);
    const groupCommit = gathering(database);
    const arrived = groupCommit.expect();
    await groupCommit.store(item(1), arrived); // no timer advanced: it would hang if it waited
    expect(transactions()).toBe(1);
  });

  it('waits for a certificate announced meanwhile and stores both in one transaction', async () => {
    jest.useFakeTimers();
    const { database, transactions } = scriptedDatabase([]);
    const published: string[][] = [];
    const groupCommit = gathering(database, async (events) => {
      published.push(events.map((event) => event.id));
      return new Set();
    });
    const [first, second] = [groupCommit.expect(), groupCommit.expect()];
    const both = [groupCommit.store(item(1), first)];
    await jest.advanceTimersByTimeAsync(10); // the second is still being signed
    both.push(groupCommit.store(item(2), second));
    await Promise.all(both);
    expect(published).toEqual([['1', '2']]);
    expect(transactions()).toBe(1);
  });

  it('goes without a certificate announced but given up, or late past the wait', async () => {
    jest.useFakeTimers();
    const { database, transactions } = scriptedDatabase([]);
    const groupCommit = gathering(database);
    const refused = groupCommit.expect();
    const late = groupCommit.expect();
    const first = groupCommit.store(item(1), groupCommit.expect());
    refused(); // refused by policy before it was signed
    refused(); // said twice: counted once
    await jest.advanceTimersByTimeAsync(50);
    await first;
    expect(transactions()).toBe(1);
    await groupCommit.store(item(2), late);
    expect(transactions()).toBe(2);
  });
});
