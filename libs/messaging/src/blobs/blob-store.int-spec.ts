import { TestDatabase, createTestDatabase, databaseKinds } from '@ca/persistence/testing';
import { Pool } from 'pg';
import { InProcessBlobStore } from './blob-store';

describe.each(databaseKinds())('in-process blob store (%s)', (kind) => {
  let db: TestDatabase;
  let pool: Pool;

  beforeAll(async () => {
    db = await createTestDatabase(kind);
    pool = new Pool({ connectionString: db.url, max: 2 });
  }, 60_000);

  afterAll(async () => {
    await pool?.end();
    await db?.drop();
  }, 60_000);

  it('serves a blob for its TTL; the next put removes it once expired and keeps a younger one', async () => {
    let now = Date.UTC(2031, 0, 1);
    const blobs = await InProcessBlobStore.open(pool, 60_000, () => new Date(now));
    const older = await blobs.put(Uint8Array.of(1));
    now += 30_000;
    const younger = await blobs.put(Uint8Array.of(2));
    now += 30_000; // older is exactly at its TTL: still served
    expect(await blobs.get(older)).toEqual(Uint8Array.of(1));
    now += 1_000;
    expect(await blobs.get(older)).toBeUndefined();
    const newest = await blobs.put(Uint8Array.of(3));
    const { rows } = await pool.query<{ ref: string }>('SELECT ref FROM messaging.blobs');
    expect(rows.map((r) => r.ref).sort()).toEqual([younger, newest].sort());
    expect(await blobs.get(younger)).toEqual(Uint8Array.of(2));
  });
});
