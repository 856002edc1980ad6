import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Pool } from 'pg';
import { EmbeddedPostgres, startEmbeddedPostgres } from './embedded-postgres';

/**
 * The embedded database must behave like a server with many sessions, although PGlite has one:
 * no cross-talk between connections' statements, isolation of open transactions, rollbacks that
 * undo only their own work, and a vanished client that does not leave a transaction open.
 */
describe('embedded Postgres over the wire protocol', () => {
  let dir: string;
  let pg: EmbeddedPostgres;
  let pool: Pool;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ca-pgwire-'));
    pg = await startEmbeddedPostgres(dir);
    pool = new Pool({ connectionString: pg.url, max: 10 });
    await pool.query('CREATE TABLE items (id int PRIMARY KEY, owner text NOT NULL, at timestamptz NOT NULL)');
  }, 60_000);

  afterAll(async () => {
    await pool.end();
    await pg.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps concurrent parameterised statements of different shapes apart', async () => {
    const results = await Promise.all(
      Array.from({ length: 10 }, async (_, worker) => {
        let wrong = 0;
        for (let i = 0; i < 100; i++) {
          const r =
            i % 2 === 0
              ? await pool.query('SELECT $1::int AS n, $2::text AS w', [i, `w${worker}`])
              : await pool.query('SELECT $1::uuid AS u', [
                  '00000000-0000-4000-8000-00000000000' + (worker % 10),
                ]);
          if (i % 2 === 0 && (r.rows[0].n !== i || r.rows[0].w !== `w${worker}`)) wrong++;
        }
        return wrong;
      }),
    );
    expect(results.reduce((a, b) => a + b, 0)).toBe(0);
  }, 60_000);

  it('runs concurrent transactions one at a time, each seeing only its own work until commit, and rolls back only its own', async () => {
    await Promise.all(
      Array.from({ length: 8 }, async (_, worker) => {
        const client = await pool.connect();
        try {
          await client.query('BEGIN');
          await client.query('INSERT INTO items (id, owner, at) VALUES ($1, $2, $3)', [
            worker,
            `w${worker}`,
            new Date(),
          ]);
          const own = await client.query('SELECT count(*)::int AS n FROM items WHERE owner = $1', [
            `w${worker}`,
          ]);
          expect(own.rows[0].n).toBe(1);
          await client.query(worker % 2 === 0 ? 'COMMIT' : 'ROLLBACK');
        } finally {
          client.release();
        }
      }),
    );
    const { rows } = await pool.query('SELECT id FROM items ORDER BY id');
    expect(rows.map((r) => r.id)).toEqual([0, 2, 4, 6]);
  }, 60_000);

  it('rolls back the transaction of a client that disconnects inside it, and keeps serving others', async () => {
    const client = new Client({ connectionString: pg.url });
    client.on('error', () => undefined); // its connection is about to be cut on purpose
    await client.connect();
    await client.query('BEGIN');
    await client.query('INSERT INTO items (id, owner, at) VALUES (100, $1, now())', ['gone']);
    (client as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
    await new Promise((r) => setTimeout(r, 100));
    const { rows } = await pool.query('SELECT count(*)::int AS n FROM items WHERE id = 100');
    expect(rows[0].n).toBe(0);
  }, 30_000);

  it('keeps the data across a restart', async () => {
    await pool.query('INSERT INTO items (id, owner, at) VALUES (200, $1, now())', ['durable']);
    await pool.end();
    await pg.stop();
    pg = await startEmbeddedPostgres(dir);
    pool = new Pool({ connectionString: pg.url, max: 2 });
    const { rows } = await pool.query('SELECT owner FROM items WHERE id = 200');
    expect(rows).toEqual([{ owner: 'durable' }]);
  }, 60_000);
});
