import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { IssuanceApi } from '@ca/contracts';
import { BlobStore, OutboxRelay, RpcClient } from '@ca/messaging';
import { openSchemaDataSource } from '@ca/persistence';
import { TestDatabase, createTestDatabase, databaseKinds } from '@ca/persistence/testing';
import { signTbs } from '@ca/pki';
import { TestPki, createTestPki } from '@ca/pki/testing';
import { DataSource } from 'typeorm';
import { REVOCATION_MIGRATIONS } from '../migrations';
import { LedgerReconciliation } from '../ledger/ledger-reconciliation';
import { REVOCATION_SCHEMA } from '../revocation.schema';
import { SqlCrlBuildLeaseStore } from '../stores/crl-build-lease.store';
import { SqlRevocationDatabase } from '../stores/revocation-database.store';
import { CrlBuildLease } from './crl-build.lease';
import { CrlEntriesCache } from './crl-entries.cache';
import { CrlSigning } from './crl-signing';
import { CrlPublisher } from './crl.publisher';

class MemoryBlobs extends BlobStore {
  private readonly blobs = new Map<string, Uint8Array>();

  async put(bytes: Uint8Array): Promise<string> {
    const ref = randomUUID();
    this.blobs.set(ref, new Uint8Array(bytes));
    return ref;
  }

  async get(ref: string): Promise<Uint8Array | undefined> {
    return this.blobs.get(ref);
  }

  async delete(ref: string): Promise<void> {
    this.blobs.delete(ref);
  }
}

jest.setTimeout(60_000);

/** Two revocation replicas on one schema: one CRL build per CA at a time, none wasted. */
describe.each(databaseKinds())('CRL builds of two replicas (%s database)', (kind) => {
  let database: TestDatabase;
  let dataSource: DataSource;
  let pki: TestPki;

  beforeAll(async () => {
    pki = await createTestPki('Build Lease Test Root');
    database = await createTestDatabase(kind);
    dataSource = await openSchemaDataSource({
      url: database.url,
      schema: REVOCATION_SCHEMA,
      entities: [],
      migrations: REVOCATION_MIGRATIONS,
    });
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await database?.drop();
  });

  async function addIssuer(): Promise<string> {
    const caId = randomUUID();
    await dataSource.query(
      `INSERT INTO revocation.crl_issuers (tenant_id, ca_id, ca_certificate_der, ca_not_after)
       VALUES ($1, $2, $3, now() + interval '1 year')`,
      [randomUUID(), caId, Buffer.from(pki.caDer)],
    );
    return caId;
  }

  /** A replica: its own publisher; issuance signs slowly, so two builds would overlap. */
  function replica(blobs: BlobStore, signed: string[]): CrlPublisher {
    const issuance = {
      send: async (_pattern: string, command: { caId: string; tbsBlobRef: string }) => {
        signed.push(command.caId);
        await sleep(200);
        const tbs = (await blobs.get(command.tbsBlobRef))!;
        return { signature: Buffer.from(await signTbs(tbs, pki.caKeys.privateKey)).toString('base64') };
      },
    } as unknown as RpcClient<IssuanceApi>;
    const database = new SqlRevocationDatabase(dataSource);
    const relay = { nudge: () => undefined } as unknown as OutboxRelay;
    const reconciliation = new LedgerReconciliation(database, issuance);
    return new CrlPublisher(
      new CrlSigning(database, issuance, blobs, relay, reconciliation),
      database.tables.issuers,
      new CrlEntriesCache(database.tables.ledger),
      new CrlBuildLease(new SqlCrlBuildLeaseStore(dataSource.manager)),
    );
  }

  it('builds one after the other, each signed CRL stored under the next number', async () => {
    const caId = await addIssuer();
    const blobs = new MemoryBlobs();
    const signed: string[] = [];
    const [a, b] = [replica(blobs, signed), replica(blobs, signed)];
    // Both see the same revocation at the same moment.
    await Promise.all([a.request(caId), b.request(caId)]);
    await Promise.all([a.idle(), b.idle()]);
    const crls: { crl_number: string }[] = await dataSource.query(
      'SELECT crl_number FROM revocation.crls WHERE ca_id = $1 ORDER BY crl_number',
      [caId],
    );
    expect(crls.map((crl) => crl.crl_number)).toEqual(['1', '2']);
    // No build lost its number and was thrown away.
    expect(signed).toHaveLength(2);
    const [issuer]: { build_lease_owner: string | null }[] = await dataSource.query(
      'SELECT build_lease_owner FROM revocation.crl_issuers WHERE ca_id = $1',
      [caId],
    );
    expect(issuer.build_lease_owner).toBeNull();
  });

  it('takes over a CA whose builder died once its lease lapses', async () => {
    const caId = await addIssuer();
    await dataSource.query(
      `UPDATE revocation.crl_issuers SET build_lease_owner = $2, build_lease_until = now() + interval '1 second'
        WHERE ca_id = $1`,
      [caId, randomUUID()],
    );
    const signed: string[] = [];
    const started = Date.now();
    await replica(new MemoryBlobs(), signed).request(caId);
    expect(Date.now() - started).toBeGreaterThanOrEqual(800);
    expect(signed).toHaveLength(1);
  });

  it('keeps the lease of a build that runs longer than the lease by renewing it', async () => {
    const caId = await addIssuer();
    const holder = new CrlBuildLease(new SqlCrlBuildLeaseStore(dataSource.manager), 300);
    const other = new CrlBuildLease(new SqlCrlBuildLeaseStore(dataSource.manager), 300);
    await expect(holder.acquire(caId)).resolves.toBe(true);
    // Three lease lengths later the holder still has it: the other is still waiting.
    const waiting = other.acquire(caId);
    await expect(Promise.race([waiting, sleep(900).then(() => 'still waiting')])).resolves.toBe(
      'still waiting',
    );
    await holder.release(caId);
    await expect(waiting).resolves.toBe(true);
    await other.release(caId);
  });
});
