import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { EventType } from '@ca/contracts';
import { BlobStore } from '@ca/messaging';
import { openSchemaDataSource } from '@ca/persistence';
import { TestDatabase, createTestDatabase, databaseKinds } from '@ca/persistence/testing';
import { DataSource } from 'typeorm';
import { REVOCATION_MIGRATIONS } from '../migrations';
import { REVOCATION_SCHEMA } from '../revocation.schema';
import { SqlCrlOutboxStore } from '../stores/crl-outbox.store';
import { CrlBlobSweeper, SUPERSEDED_CRL_BLOB_GRACE_MS } from './crl-blob.sweeper';

class RecordingBlobs extends BlobStore {
  readonly deleted: string[] = [];

  async put(): Promise<string> {
    throw new Error('not used');
  }

  async get(): Promise<Uint8Array | undefined> {
    return undefined;
  }

  async delete(ref: string): Promise<void> {
    this.deleted.push(ref);
  }
}

const MINUTE = 60_000;

describe.each(databaseKinds())('superseded CRL blobs (%s database)', (kind) => {
  let database: TestDatabase;
  let dataSource: DataSource;

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    dataSource = await openSchemaDataSource({
      url: database.url,
      schema: REVOCATION_SCHEMA,
      entities: [],
      migrations: REVOCATION_MIGRATIONS,
    });
  }, 60_000);

  afterAll(async () => {
    await dataSource?.destroy();
    await database?.drop();
  }, 60_000);

  /** A crl.published row as CrlPublisher records it, and the relay marks it, at `publishedAt`. */
  async function published(tenantId: string, publishedAt: Date): Promise<string> {
    const blobRef = randomUUID();
    await dataSource.query(
      `INSERT INTO revocation.outbox (id, type, tenant_id, payload, occurred_at, published_at)
       VALUES ($1, $2, $3, $4, $5, $5)`,
      [randomUUID(), EventType.CrlPublished, tenantId, JSON.stringify({ tenantId, blobRef }), publishedAt],
    );
    return blobRef;
  }

  it('deletes a CRL blob once its successor has been out for the grace period, never the newest', async () => {
    const now = new Date();
    const [a, b] = [randomUUID(), randomUUID()];
    const a1 = await published(a, new Date(now.getTime() - 30 * MINUTE));
    const a2 = await published(a, new Date(now.getTime() - 20 * MINUTE)); // supersedes a1
    const a3 = await published(a, new Date(now.getTime() - MINUTE)); // supersedes a2, within the grace
    const b1 = await published(b, new Date(now.getTime() - 10 * MINUTE)); // b's newest
    const blobs = new RecordingBlobs();
    const sweeper = new CrlBlobSweeper(new SqlCrlOutboxStore(dataSource.manager), blobs);

    await expect(sweeper.sweep(now)).resolves.toBe(1);
    expect(blobs.deleted).toEqual([a1]);

    // Later: a2's successor is past the grace; a1 is not deleted twice; a3 and b1 stay.
    await expect(sweeper.sweep(new Date(now.getTime() + SUPERSEDED_CRL_BLOB_GRACE_MS))).resolves.toBe(1);
    expect(blobs.deleted).toEqual([a1, a2]);
    expect(blobs.deleted).not.toContain(a3);
    expect(blobs.deleted).not.toContain(b1);
  });
});
