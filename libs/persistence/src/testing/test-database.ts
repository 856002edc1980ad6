import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { startEmbeddedPostgres } from '../embedded-postgres';
import { seedEmbeddedDataDir } from './embedded-data-dir';

export type DatabaseKind = 'embedded' | 'postgres';

export interface TestDatabase {
  kind: DatabaseKind;
  url: string;
  /** A data directory of its own (embedded database, KEK, development keys). */
  dataDir: string;
  drop(): Promise<void>;
}

/**
 * The database kinds a suite runs on: embedded, and real Postgres when DATABASE_URL is set.
 * `TEST_REAL_ONLY=1` (CI's second pass, after a pass on the embedded defaults) leaves embedded out.
 */
export function databaseKinds(): DatabaseKind[] {
  if (!process.env.DATABASE_URL) return ['embedded'];
  return process.env.TEST_REAL_ONLY === '1' ? ['postgres'] : ['embedded', 'postgres'];
}

/**
 * A database that belongs to one test suite: a fresh PGlite in a temp dir, or a fresh database
 * on the server of DATABASE_URL, dropped afterwards. Suites never share data.
 */
export async function createTestDatabase(kind: DatabaseKind): Promise<TestDatabase> {
  const dataDir = mkdtempSync(join(tmpdir(), 'ca-test-'));
  const removeDir = () => rmSync(dataDir, { recursive: true, force: true });
  if (kind === 'embedded') {
    await seedEmbeddedDataDir(dataDir);
    const pg = await startEmbeddedPostgres(dataDir);
    return { kind, url: pg.url, dataDir, drop: async () => (await pg.stop(), removeDir()) };
  }
  const adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) throw new Error('DATABASE_URL is not set');
  const name = `ca_test_${randomBytes(6).toString('hex')}`;
  await withClient(adminUrl, (c) => c.query(`CREATE DATABASE ${name}`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    kind,
    url: url.toString(),
    dataDir,
    drop: async () => {
      await withClient(adminUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
      removeDir();
    },
  };
}

async function withClient<T>(url: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
