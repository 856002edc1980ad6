import 'reflect-metadata';
import { createHash, randomUUID } from 'node:crypto';
import { CrlPublishedPayload, EventEnvelope, EventType } from '@ca/contracts';
import { BlobStore } from '@ca/messaging';
import { openSchemaDataSource } from '@ca/persistence';
import { RevokedCertificateEntry, assembleCertificateList, encodeTbsCertList, signTbs } from '@ca/pki';
import { TestPki, createTestPki } from '@ca/pki/testing';
import { TestDatabase, createTestDatabase, databaseKinds } from '@ca/persistence/testing';
import { DataSource } from 'typeorm';
import { OCSP_MIGRATIONS } from '../migrations';
import { OCSP_SCHEMA } from '../ocsp.schema';
import { CrlStore } from './crl.store';

/**
 * The served CRL of a tenant: a CRL of megabytes (100,000 entries) is served from memory as soon
 * as it is copied, and revalidated by its digest, so the megabytes are read from the database only
 * when another replica stored a newer one. Only CRLs the tenant CA signed are served.
 */
jest.setTimeout(60_000);

class MemoryBlobs extends BlobStore {
  private readonly blobs = new Map<string, Uint8Array>();

  async put(bytes: Uint8Array): Promise<string> {
    const ref = randomUUID();
    this.blobs.set(ref, bytes);
    return ref;
  }

  async get(ref: string): Promise<Uint8Array | undefined> {
    return this.blobs.get(ref);
  }

  async delete(ref: string): Promise<void> {
    this.blobs.delete(ref);
  }
}

const CACHE_MS = 2_000;

describe.each(databaseKinds())('CrlStore (%s database)', (kind) => {
  let database: TestDatabase;
  let sources: DataSource[];
  let blobs: MemoryBlobs;
  let replicaA: CrlStore;
  let replicaB: CrlStore;
  /** Statements that read a CRL's DER, per data source. */
  let derReads: number[];
  /** The tenant CA of every tenant here, and a key that is not it. */
  let ca: TestPki;
  let forger: TestPki;

  beforeAll(async () => {
    ca = await createTestPki('CRL Store Root');
    forger = await createTestPki('CRL Store Root');
    database = await createTestDatabase(kind);
    const open = () =>
      openSchemaDataSource({
        url: database.url,
        schema: OCSP_SCHEMA,
        entities: [],
        migrations: OCSP_MIGRATIONS,
      });
    sources = [await open(), await open()];
    derReads = [0, 0];
    sources.forEach((source, i) => {
      const query = source.query.bind(source);
      source.query = ((sql: string, ...rest: unknown[]) => {
        if (sql.startsWith('SELECT der')) derReads[i]++;
        return query(sql, ...(rest as []));
      }) as typeof source.query;
    });
    blobs = new MemoryBlobs();
    replicaA = new CrlStore(sources[0], blobs);
    replicaB = new CrlStore(sources[1], blobs);
  });

  afterAll(async () => {
    await replicaA?.stop();
    await replicaB?.stop();
    for (const source of sources ?? []) await source.destroy();
    await database?.drop();
  });

  /** The tenant's CA certificate, as `ca.initialized` leaves it in the responder's schema. */
  async function withCa(tenantId: string): Promise<string> {
    await sources[0].query(
      `INSERT INTO ocsp.ca_certificates (tenant_id, ca_id, certificate_der, not_after, published_at)
       VALUES ($1, $2, $3, now() + interval '1 year', now())`,
      [tenantId, randomUUID(), Buffer.from(ca.caDer)],
    );
    return tenantId;
  }

  /** A CRL naming the tenant CA, of about `size` octets, signed with `signer`'s key. */
  async function signedCrl(crlNumber: bigint, size: number, signer: TestPki): Promise<Buffer> {
    const thisUpdate = new Date(Math.floor(Date.now() / 1000) * 1000);
    function* entries(): Generator<RevokedCertificateEntry> {
      for (let i = 1; i <= Math.ceil(size / 40); i++) {
        yield { serialNumberHex: (0x10000 + i).toString(16), revocationDate: thisUpdate, reasonCode: 1 };
      }
    }
    const tbs = encodeTbsCertList({
      issuerCertificateDer: ca.caDer,
      crlNumber,
      thisUpdate,
      nextUpdate: new Date(thisUpdate.getTime() + 86_400_000),
      entries: entries(),
    });
    return Buffer.from(assembleCertificateList(tbs, await signTbs(tbs, signer.caKeys.privateKey)));
  }

  /**
   * Publishes a CRL of about `size` octets numbered `crlNumber` (signed by the tenant CA unless
   * `signer` says otherwise) and has `store` apply its event.
   */
  async function publish(
    store: CrlStore,
    tenantId: string,
    crlNumber: number | bigint,
    size = 256 << 10,
    signer = ca,
  ) {
    const der = await signedCrl(BigInt(crlNumber), size, signer);
    const thisUpdate = new Date(Math.floor(Date.now() / 1000) * 1000);
    const event: EventEnvelope<CrlPublishedPayload> = {
      id: randomUUID(),
      type: EventType.CrlPublished,
      tenantId,
      occurredAt: thisUpdate.toISOString(),
      payload: {
        tenantId,
        crlNumber: crlNumber.toString(),
        thisUpdate: thisUpdate.toISOString(),
        nextUpdate: new Date(thisUpdate.getTime() + 86_400_000).toISOString(),
        blobRef: await blobs.put(der),
        sha256: createHash('sha256').update(der).digest('hex'),
      },
    };
    await store.apply(event);
    // Copied off the event consumer: wait until it is done.
    for (let copied = false; !copied; await new Promise((resolve) => setTimeout(resolve, 10))) {
      const pending: unknown[] = await sources[0].query(
        'SELECT 1 FROM ocsp.pending_crls WHERE tenant_id = $1',
        [tenantId],
      );
      copied = pending.length === 0;
    }
    return { der, etag: `"${event.payload.sha256}"` };
  }

  async function servedBy(store: CrlStore, tenantId: string, etag: string): Promise<Buffer> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const crl = await store.find(tenantId);
      if (crl?.etag === etag) return crl.der;
      if (Date.now() > deadline) throw new Error(`never served ${etag}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  it('serves a CRL it copied from memory, and keeps serving it after revalidating its digest', async () => {
    const tenantId = await withCa(randomUUID());
    const { der, etag } = await publish(replicaA, tenantId, 1);
    expect((await replicaA.find(tenantId))?.der).toEqual(der);
    await new Promise((resolve) => setTimeout(resolve, CACHE_MS + 100));
    expect((await replicaA.find(tenantId))?.etag).toBe(etag);
    expect(derReads[0]).toBe(0);
  });

  it('serves within the cache time a newer CRL that another replica copied, and never an older one', async () => {
    const tenantId = await withCa(randomUUID());
    const first = await publish(replicaA, tenantId, 5);
    expect((await replicaA.find(tenantId))?.etag).toBe(first.etag);
    const newer = await publish(replicaB, tenantId, 6);
    expect((await replicaB.find(tenantId))?.etag).toBe(newer.etag);

    // Once its cache time is up, replica A finds the digest changed and reads the newer CRL once.
    expect(await servedBy(replicaA, tenantId, newer.etag)).toEqual(newer.der);
    expect(derReads[0]).toBe(1);

    // An older CRL announced late is not stored, nor served.
    await publish(replicaA, tenantId, 4);
    expect((await replicaA.find(tenantId))?.etag).toBe(newer.etag);
  });

  it('refuses a CRL signed by another key, even with a huge number, and keeps serving the genuine one', async () => {
    const tenantId = await withCa(randomUUID());
    const genuine = await publish(replicaA, tenantId, 3, 4096);
    expect(await servedBy(replicaA, tenantId, genuine.etag)).toEqual(genuine.der);
    await publish(replicaA, tenantId, 4, 4096, forger);
    await publish(replicaA, tenantId, 2n ** 150n, 4096, forger);
    expect((await replicaA.find(tenantId))?.etag).toBe(genuine.etag);
    const stored: { crl_number: string }[] = await sources[0].query(
      'SELECT crl_number FROM ocsp.crls WHERE tenant_id = $1',
      [tenantId],
    );
    expect(stored).toEqual([{ crl_number: '3' }]);
    // The forged huge number did not push the next genuine CRL aside.
    const next = await publish(replicaA, tenantId, 4, 4096);
    expect(await servedBy(replicaA, tenantId, next.etag)).toEqual(next.der);
  });

  it('refuses a CRL whose bytes differ from the announced SHA-256 or number, or that is not a CRL', async () => {
    const tenantId = await withCa(randomUUID());
    const genuine = await publish(replicaA, tenantId, 1, 4096);
    const der = await signedCrl(9n, 4096, ca);
    for (const payload of [
      { crlNumber: '9', bytes: Buffer.from('not a CRL at all') },
      { crlNumber: '8', bytes: der }, // the CRL says 9
    ]) {
      const event: EventEnvelope<CrlPublishedPayload> = {
        id: randomUUID(),
        type: EventType.CrlPublished,
        tenantId,
        occurredAt: new Date().toISOString(),
        payload: {
          tenantId,
          crlNumber: payload.crlNumber,
          thisUpdate: new Date().toISOString(),
          nextUpdate: new Date(Date.now() + 86_400_000).toISOString(),
          blobRef: await blobs.put(payload.bytes),
          sha256: createHash('sha256').update(payload.bytes).digest('hex'),
        },
      };
      await replicaA.apply(event);
    }
    // A malformed announcement is recorded as applied, and blocks nothing.
    await replicaA.apply({
      id: randomUUID(),
      type: EventType.CrlPublished,
      tenantId,
      occurredAt: new Date().toISOString(),
      payload: { tenantId, crlNumber: 'many', thisUpdate: 'x', nextUpdate: 'y', blobRef: '', sha256: '' },
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await replicaA.find(tenantId))?.etag).toBe(genuine.etag);
  });

  it('keeps a CRL announced before the tenant CA certificate pending, and serves it once the CA is known', async () => {
    const tenantId = randomUUID();
    const der = await signedCrl(1n, 4096, ca);
    const sha256 = createHash('sha256').update(der).digest('hex');
    await replicaA.apply({
      id: randomUUID(),
      type: EventType.CrlPublished,
      tenantId,
      occurredAt: new Date().toISOString(),
      payload: {
        tenantId,
        crlNumber: '1',
        thisUpdate: new Date().toISOString(),
        nextUpdate: new Date(Date.now() + 86_400_000).toISOString(),
        blobRef: await blobs.put(der),
        sha256,
      },
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await replicaA.find(tenantId)).toBeUndefined();
    await withCa(tenantId);
    expect(await servedBy(replicaA, tenantId, `"${sha256}"`)).toEqual(der);
  });

  it('serves nothing for a tenant without a CRL', async () => {
    expect(await replicaA.find(randomUUID())).toBeUndefined();
    expect(await replicaA.find('not-a-tenant')).toBeUndefined();
  });
});
