import { randomUUID } from 'node:crypto';
import { BlobStore } from '@ca/messaging';
import type { DataSource } from 'typeorm';
import { CrlStore } from './crl.store';

/** What node-postgres raises once the responder's role is NOLOGIN (SQLSTATE 28000). */
const refused = () =>
  Object.assign(new Error('role "ca_ocsp" is not permitted to log in'), { code: '28000' });

/** A database holding one served CRL, which can be taken away (refused) or break otherwise. */
function database(nextUpdate: Date) {
  const state = { failure: undefined as (() => Error) | undefined, reads: 0 };
  const row = {
    der: Buffer.from('crl-der'),
    sha256: 'ab'.repeat(32),
    this_update: new Date(),
    next_update: nextUpdate,
  };
  const dataSource = {
    query: async (sql: string) => {
      state.reads++;
      if (state.failure) throw state.failure();
      return sql.startsWith('SELECT sha256') ? [{ sha256: row.sha256 }] : [row];
    },
  } as unknown as DataSource;
  return { state, store: new CrlStore(dataSource, {} as BlobStore) };
}

describe('CrlStore.find while the database is away', () => {
  it('serves the CRL it served last, still valid, when the database refuses the responder', async () => {
    const { state, store } = database(new Date(Date.now() + 3_600_000));
    const tenant = randomUUID();
    const served = await store.find(tenant);
    expect(served?.der.toString()).toBe('crl-der');
    state.failure = refused;
    expect(await store.find(tenant)).toBe(served);
    // A tenant it never served needs the database: the failure goes on to the 503.
    await expect(store.find(randomUUID())).rejects.toMatchObject({ code: '28000' });
  });

  it('serves no CRL past its nextUpdate from memory, and no answer for an error that is not an outage', async () => {
    const { state, store } = database(new Date(Date.now() + 50));
    const tenant = randomUUID();
    await store.find(tenant);
    await new Promise((resolve) => setTimeout(resolve, 60));
    state.failure = refused;
    await expect(store.find(tenant)).rejects.toMatchObject({ code: '28000' });

    const fresh = database(new Date(Date.now() + 3_600_000));
    await fresh.store.find(tenant);
    fresh.state.failure = () => Object.assign(new Error('syntax error'), { code: '42601' });
    await expect(fresh.store.find(tenant)).rejects.toMatchObject({ code: '42601' });
  });
});
