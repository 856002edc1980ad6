import 'reflect-metadata';
import { createHash, randomUUID } from 'node:crypto';
import { CrlPublishedPayload, EventEnvelope, EventType } from '@ca/contracts';
import { BlobStore } from '@ca/messaging';
import { openSchemaDataSource } from '@ca/persistence';
import { TestDatabase, createTestDatabase, databaseKinds } from '@ca/persistence/testing';
import { DataSource } from 'typeorm';
import { OCSP_MIGRATIONS } from '../migrations';
import { OCSP_SCHEMA } from '../ocsp.schema';
import { CrlStore } from './crl.store';

/**
 * The served CRL of a tenant: a CRL of megabytes (issue #8: 100,000 entries) is served from memory
 * as soon as it is copied, and revalidated by its digest, so the megabytes are read from the
 * database only when another replica stored a newer one.
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

  beforeAll(async () => {
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

  /** Publishes a CRL of `size` octets numbered `crlNumber` and has `store` apply its event. */
  async function publish(store: CrlStore, tenantId: string, crlNumber: number, size = 256 << 10) {
    const der = Buffer.alloc(size, crlNumber);
    const thisUpdate = new Date(Math.floor(Date.now() / 1000) * 1000);
    const event: EventEnvelope<CrlPublishedPayload> = {
      id: randomUUID(),
      type: EventType.CrlPublished,
      tenantId,
      occurredAt: thisUpdate.toISOString(),
      payload: {
        tenantId,
        crlNumber: String(crlNumber),
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
    const tenantId = randomUUID();
    const { der, etag } = await publish(replicaA, tenantId, 1);
    expect((await replicaA.find(tenantId))?.der).toEqual(der);
    await new Promise((resolve) => setTimeout(resolve, CACHE_MS + 100));
    expect((await replicaA.find(tenantId))?.etag).toBe(etag);
    expect(derReads[0]).toBe(0);
  });

  it('serves within the cache time a newer CRL that another replica copied, and never an older one', async () => {
    const tenantId = randomUUID();
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

  it('serves nothing for a tenant without a CRL', async () => {
    expect(await replicaA.find(randomUUID())).toBeUndefined();
    expect(await replicaA.find('not-a-tenant')).toBeUndefined();
  });
});
