/**
 * The database's cost per statement, embedded against real Postgres on the same machine: the
 * statements issuance's hot path is made of, one client, one after the other, so each figure is
 * one statement's round trip. Per statement: wall time and CPU, counted where it is spent:
 *
 * - PGlite as the services use it (`pg` → the wire server → PGlite, all in this process): this
 *   process's CPU;
 * - PGlite called directly (`db.query`, no wire protocol, no `pg`): this process's CPU; the
 *   difference to the line above is the driver and the shim;
 * - Postgres (DATABASE_URL, a throwaway database): this process's CPU (`pg`) plus the CPU of the
 *   backend serving the connection (its /proc entry); Postgres's WAL writer and checkpointer are
 *   not counted.
 *
 *   node -r @swc-node/register bench/sql-statement.ts [--count 2000] [--quick] [--no-record]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { startEmbeddedPostgres } from '@ca/persistence';
import { Client } from 'pg';
import { benchArgs, intOption } from './lib/args';
import { machineInfo } from './lib/machine';
import { processCpuMs } from './lib/process-cpu';
import { onCleanup, runMain } from './lib/proc';
import { report } from './lib/report';
import { createThrowawayDatabase } from './lib/system';

const USAGE = `bench/sql-statement.ts: the cost of one statement, PGlite (through pg and directly) vs Postgres.
  --count N   statements per kind and database (default 2000; --quick: 300)
  --no-record do not append to bench/history`;

type Run = (sql: string, params?: unknown[]) => Promise<unknown>;

interface Target {
  what: string;
  run: Run;
  /** CPU (ms) spent so far by everything that serves this target's statements. */
  cpuMs(): number;
  close(): Promise<void>;
}

/** Issuance's hot path, statement by statement; `$i` is the iteration. */
const KINDS: { what: string; statements: (i: number) => [string, unknown[]][] }[] = [
  { what: '`SELECT 1` (the round trip alone)', statements: () => [['SELECT 1', []]] },
  {
    what: 'primary-key read of one row',
    statements: (i) => [['SELECT id, body FROM bench_sql.rows WHERE id = $1', [(i % 1000) + 1]]],
  },
  {
    what: 'one-row INSERT, committed alone',
    statements: (i) => [
      ['INSERT INTO bench_sql.rows (id, body) VALUES ($1, $2)', [100_000 + i, 'x'.repeat(600)]],
    ],
  },
  {
    what: 'a batch transaction: BEGIN, advisory lock, 2 multi-row INSERTs (3 rows), COMMIT (per transaction)',
    statements: (i) => [
      ['BEGIN', []],
      ['SELECT pg_advisory_xact_lock(hashtext($1))', ['tenant']],
      [
        'INSERT INTO bench_sql.rows (id, body) SELECT * FROM unnest($1::bigint[], $2::text[])',
        [
          [1e6 + 3 * i, 1e6 + 3 * i + 1, 1e6 + 3 * i + 2],
          ['a'.repeat(600), 'b'.repeat(600), 'c'.repeat(600)],
        ],
      ],
      [
        'INSERT INTO bench_sql.events (id, body) SELECT * FROM unnest($1::bigint[], $2::jsonb[])',
        [
          [3 * i, 3 * i + 1, 3 * i + 2],
          ['{"a":1}', '{"b":2}', '{"c":3}'],
        ],
      ],
      ['COMMIT', []],
    ],
  },
];

const SETUP = [
  'CREATE SCHEMA IF NOT EXISTS bench_sql',
  'CREATE TABLE bench_sql.rows (id bigint PRIMARY KEY, body text NOT NULL)',
  'CREATE TABLE bench_sql.events (seq bigserial PRIMARY KEY, id bigint NOT NULL, body jsonb NOT NULL)',
  `INSERT INTO bench_sql.rows SELECT g, repeat('r', 600) FROM generate_series(1, 1000) g`,
];

interface Row {
  target: string;
  kind: string;
  usWall: number;
  usCpu: number;
}

async function main(): Promise<void> {
  const { quick, record, values } = benchArgs(USAGE, { count: { type: 'string' } });
  const count = intOption(values.count, 'count', quick ? 300 : 2000);
  const machine = machineInfo();
  const targets: Target[] = [await pgliteThroughPg(), await pgliteDirect()];
  if (process.env.DATABASE_URL) targets.push(await postgres(process.env.DATABASE_URL));
  const rows: Row[] = [];
  for (const target of targets) for (const sql of SETUP) await target.run(sql);
  // Interleaved: each kind on every target before the next kind.
  for (const kind of KINDS) {
    for (const target of targets) {
      const n = Math.max(20, Math.floor(count / kind.statements(0).length));
      for (let i = 0; i < Math.min(50, n); i++)
        for (const [sql, p] of kind.statements(-1 - i)) await target.run(sql, p);
      const cpu0 = target.cpuMs();
      const t0 = performance.now();
      for (let i = 0; i < n; i++) for (const [sql, p] of kind.statements(i)) await target.run(sql, p);
      const wall = performance.now() - t0;
      const cpu = target.cpuMs() - cpu0;
      const row = {
        target: target.what,
        kind: kind.what,
        usWall: (wall * 1000) / n,
        usCpu: (cpu * 1000) / n,
      };
      rows.push(row);
      process.stdout.write(
        `${row.target.padEnd(34)} ${row.kind.slice(0, 60).padEnd(60)} ${row.usWall.toFixed(0).padStart(6)} µs wall ${row.usCpu.toFixed(0).padStart(6)} µs CPU\n`,
      );
    }
  }
  for (const target of targets) await target.close();
  report(
    {
      title: 'the database cost per statement: PGlite (through pg, directly) vs Postgres',
      command: '`npm run bench -- sql-statement` (`node -r @swc-node/register bench/sql-statement.ts`)',
      machine,
      settings: [
        `${count} statements per kind and database, one client, one after the other (after 50 for warm-up), kinds interleaved across the databases. Rows of 600 bytes, as a certificate row is about.`,
        "CPU: PGlite runs in this process, so its CPU is this process's; for Postgres, this process (the `pg` driver) plus the backend serving the connection (its /proc entry), not its WAL writer or checkpointer. Postgres is the machine's server with its own settings (synchronous_commit as configured).",
      ],
      tables: [
        {
          headers: ['database', 'statement', 'µs wall', 'µs CPU'],
          rows: rows.map((r) => [r.target, r.kind, r.usWall.toFixed(0), r.usCpu.toFixed(0)]),
          align: ['left', 'left', 'right', 'right'],
        },
      ],
      notes: ['Load average is in the machine line: CPU is the steadier figure on a shared machine.'],
    },
    record,
  );
}

async function pgliteThroughPg(): Promise<Target> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-sql-'));
  onCleanup(() => rmSync(dir, { recursive: true, force: true }));
  const db = await startEmbeddedPostgres(dir, 3_600_000);
  const client = new Client({ connectionString: db.url });
  await client.connect();
  return {
    what: 'PGlite through `pg` (as services)',
    run: (sql, params) => client.query(sql, params),
    cpuMs: () => processCpuMs(process.pid) ?? NaN,
    close: async () => {
      await client.end();
      await db.stop();
    },
  };
}

async function pgliteDirect(): Promise<Target> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-sql-direct-'));
  onCleanup(() => rmSync(dir, { recursive: true, force: true }));
  const db = await PGlite.create({ dataDir: dir });
  return {
    what: 'PGlite directly (`db.query`)',
    run: (sql, params) => db.query(sql, params as unknown[]),
    cpuMs: () => processCpuMs(process.pid) ?? NaN,
    close: () => db.close(),
  };
}

async function postgres(adminUrl: string): Promise<Target> {
  const database = await createThrowawayDatabase(adminUrl);
  onCleanup(() => database.drop());
  const client = new Client({ connectionString: database.url });
  await client.connect();
  const {
    rows: [{ pid }],
  } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  return {
    what: `Postgres ${database.serverVersion}`,
    run: (sql, params) => client.query(sql, params),
    cpuMs: () => (processCpuMs(process.pid) ?? NaN) + (processCpuMs(pid) ?? NaN),
    close: async () => {
      await client.end();
      await database.drop();
    },
  };
}

runMain(main);
