import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

export interface EmbeddedPostgres {
  /** A normal Postgres connection URL for the `pg` driver. */
  url: string;
  stop(): Promise<void>;
}

/**
 * Embedded mode's database: PGlite (PostgreSQL in WebAssembly) with its files under
 * `<dataDir>/pg`, behind pglite-socket's wire-protocol server on a free loopback port, so the
 * services use the same `pg` driver, schemas and migrations as against a real server.
 * `maxConnections` must cover every pool in the process (pglite-socket rejects beyond it).
 * Not `typeorm-pglite`: it shares one session between connections, so one transaction's
 * rollback can undo another's insert.
 */
export async function startEmbeddedPostgres(dataDir: string, maxConnections = 64): Promise<EmbeddedPostgres> {
  const dir = join(dataDir, 'pg');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const db = await PGlite.create({ dataDir: dir });
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections });
  await server.start();
  const url = `postgres://postgres@${server.getServerConn()}/postgres`;
  return {
    url,
    async stop() {
      await server.stop();
      await db.close();
    },
  };
}
