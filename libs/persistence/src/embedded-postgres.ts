import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PgliteWireServer } from './pglite-wire.server';

export interface EmbeddedPostgres {
  /** A normal Postgres connection URL for the `pg` driver. */
  url: string;
  stop(): Promise<void>;
}

/**
 * Embedded mode's database: PGlite (PostgreSQL in WebAssembly) with its files under
 * `<dataDir>/pg`, behind a wire-protocol server on a free loopback port, so the services use the
 * same `pg` driver, schemas and migrations as against a real server. Not `typeorm-pglite`: it
 * shares one session between connections, so one transaction's rollback can undo another's insert.
 * The server asks for a password made afresh at each start and known only to this process (it is
 * in `url`), so no other local process can connect to the superuser session.
 */
export async function startEmbeddedPostgres(dataDir: string): Promise<EmbeddedPostgres> {
  const dir = join(dataDir, 'pg');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const db = await PGlite.create({ dataDir: dir });
  const password = randomBytes(24).toString('base64url');
  const server = new PgliteWireServer(db, password);
  const port = await server.listen('127.0.0.1', 0);
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    async stop() {
      await server.close();
      await db.close();
    },
  };
}
