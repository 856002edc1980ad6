import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Extension, PGlite } from '@electric-sql/pglite';
import { Client } from 'pg';
import { PgliteWireServer } from './pglite-wire.server';

/**
 * PGlite runs no autovacuum (no background workers): without a VACUUM, the space of deleted and
 * updated rows is never reused, so tables whose rows are pruned (outbox, inbox, stream, blobs,
 * downloads) would grow on disk with time while their row counts stay flat. Every table is
 * vacuumed this often instead; pages without dead rows are skipped (the visibility map).
 */
export const EMBEDDED_VACUUM_INTERVAL_MS = 60_000;

// The package exports it as a subpath, which TypeScript's `node` module resolution cannot see.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { pg_trgm } = require('@electric-sql/pglite/contrib/pg_trgm') as { pg_trgm: Extension };
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { btree_gin } = require('@electric-sql/pglite/contrib/btree_gin') as { btree_gin: Extension };

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
export async function startEmbeddedPostgres(
  dataDir: string,
  vacuumIntervalMs = EMBEDDED_VACUUM_INTERVAL_MS,
): Promise<EmbeddedPostgres> {
  const dir = join(dataDir, 'pg');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // pg_trgm and btree_gin: the certificate inventory's substring search index, per tenant
  // (issuance migrations).
  const db = await PGlite.create({ dataDir: dir, extensions: { pg_trgm, btree_gin } });
  const password = randomBytes(24).toString('base64url');
  const server = new PgliteWireServer(db, password);
  const port = await server.listen('127.0.0.1', 0);
  const url = `postgres://postgres:${password}@127.0.0.1:${port}/postgres`;
  const vacuum = new PeriodicVacuum(url, vacuumIntervalMs);
  return {
    url,
    async stop() {
      await vacuum.stop();
      await server.close();
      await db.close();
    },
  };
}

/**
 * The tables autovacuum would vacuum now. The activity counters start from zero at each start
 * (PGlite keeps no statistics file), so the table's size is also taken from the catalog.
 */
const VACUUM_DUE = `
  SELECT format('%I.%I', s.schemaname, s.relname) AS name
    FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
   WHERE s.n_dead_tup > 50 + 0.2 * greatest(s.n_live_tup, c.reltuples)
      OR s.n_ins_since_vacuum > 1000 + 0.2 * greatest(s.n_live_tup, c.reltuples)
      OR age(c.relfrozenxid) > 150000000`;

/**
 * What autovacuum would do, which PGlite does not: each interval, VACUUM the tables that need it by
 * autovacuum's default thresholds (dead rows over 50 + 20% of the table, rows inserted since its
 * last vacuum over 1,000 + 20%, or its oldest transaction id near wraparound), on a connection of
 * its own through the wire server (it waits its turn). Not the whole database each time: a VACUUM
 * reads every page of every GIN index to count them (the inventory's trigram index: hundreds of
 * megabytes at a million certificates), and PGlite answers nothing else meanwhile.
 */
class PeriodicVacuum {
  private readonly timer: NodeJS.Timeout;
  private running?: Promise<void>;
  private client?: Client;

  constructor(
    private readonly url: string,
    intervalMs: number,
  ) {
    this.timer = setInterval(() => {
      this.running ??= this.run().finally(() => (this.running = undefined));
    }, intervalMs);
    this.timer.unref();
  }

  private async run(): Promise<void> {
    try {
      if (!this.client) {
        this.client = new Client({ connectionString: this.url });
        this.client.on('error', () => (this.client = undefined));
        await this.client.connect();
      }
      // The session's counts reach the statistics only when it next reports them (at most once a second).
      await this.client.query('SELECT pg_stat_force_next_flush()');
      const due: { name: string }[] = (await this.client.query(VACUUM_DUE)).rows;
      for (const { name } of due) await this.client.query(`VACUUM ${name}`);
    } catch {
      // The next interval tries again on a new connection; space is only reused later meanwhile.
      await this.client?.end().catch(() => undefined);
      this.client = undefined;
    }
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
    await this.client?.end().catch(() => undefined);
  }
}
