import { rmSync } from 'node:fs';
import { Client, Pool } from 'pg';
import { EmbeddedPostgres, startEmbeddedPostgres } from './embedded-postgres';
import { freshEmbeddedDataDir } from './testing';

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
    dir = await freshEmbeddedDataDir('ca-pgwire-');
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

  it('shares named statements between connections: each prepares one, all use it, and a name means its own text on each', async () => {
    const clients = await Promise.all(Array.from({ length: 4 }, () => pool.connect()));
    try {
      // The same name and text from every connection (what PreparingClient sends): no "already exists".
      const same = await Promise.all(
        clients.map(async (client, worker) => {
          const answers: number[] = [];
          for (let i = 0; i < 5; i++) {
            const r = await client.query({
              name: 'add',
              text: 'SELECT $1::int + $2::int AS n',
              values: [worker, i],
            });
            answers.push(r.rows[0].n);
          }
          return answers;
        }),
      );
      expect(same).toEqual(clients.map((_, worker) => [0, 1, 2, 3, 4].map((i) => worker + i)));
      // One client name, different texts on different connections: each gets its own.
      const [first, second] = clients;
      await first.query({ name: 'what', text: "SELECT 'first' AS w" });
      await second.query({ name: 'what', text: "SELECT 'second' AS w" });
      expect((await first.query({ name: 'what', text: "SELECT 'first' AS w" })).rows[0].w).toBe('first');
      expect((await second.query({ name: 'what', text: "SELECT 'second' AS w" })).rows[0].w).toBe('second');
      // A statement that fails to prepare is prepared when it is sent again, fixed table and all.
      await expect(first.query({ name: 'later', text: 'SELECT n FROM later_table' })).rejects.toThrow(
        /later_table/,
      );
      await pool.query('CREATE TABLE later_table (n int)');
      await pool.query('INSERT INTO later_table VALUES (7)');
      expect((await second.query({ name: 'later', text: 'SELECT n FROM later_table' })).rows).toEqual([
        { n: 7 },
      ]);
      expect((await first.query({ name: 'later', text: 'SELECT n FROM later_table' })).rows).toEqual([
        { n: 7 },
      ]);
      // A failed Parse inside a transaction, then the same statement after its rollback.
      await first.query('BEGIN');
      await expect(first.query('SELECT 1/0')).rejects.toThrow(/division by zero/);
      await expect(first.query({ name: 'after', text: 'SELECT 2 AS n' })).rejects.toThrow(/aborted/);
      await first.query('ROLLBACK');
      expect((await first.query({ name: 'after', text: 'SELECT 2 AS n' })).rows).toEqual([{ n: 2 }]);
      expect((await second.query({ name: 'after', text: 'SELECT 2 AS n' })).rows).toEqual([{ n: 2 }]);
    } finally {
      for (const client of clients) client.release();
      await pool.query('DROP TABLE IF EXISTS later_table');
    }
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

/** PGlite's one session is a superuser's: only the process that started it may connect. */
describe('embedded Postgres access', () => {
  let dir: string;
  let pg: EmbeddedPostgres;

  beforeAll(async () => {
    dir = await freshEmbeddedDataDir('ca-pgwire-auth-');
    pg = await startEmbeddedPostgres(dir);
  }, 60_000);

  afterAll(async () => {
    await pg.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const withoutPassword = (password?: string) => {
    const url = new URL(pg.url);
    url.password = password ?? '';
    return url.toString();
  };

  it('carries a random password in its URL, and a client with it connects', async () => {
    expect(new URL(pg.url).password.length).toBeGreaterThanOrEqual(24);
    const client = new Client({ connectionString: pg.url });
    await client.connect();
    expect((await client.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    await client.end();
  });

  it.each([
    ['no password', undefined],
    ['a wrong password', 'guessed'],
  ])('refuses a raw pg client with %s (28P01), and keeps serving the others', async (_name, password) => {
    const intruder = new Client({ connectionString: withoutPassword(password), password: password ?? '' });
    await expect(intruder.connect()).rejects.toMatchObject({ code: '28P01' });
    await intruder.end().catch(() => undefined);
    const client = new Client({ connectionString: pg.url });
    await client.connect();
    expect((await client.query('SELECT 2 AS two')).rows).toEqual([{ two: 2 }]);
    await client.end();
  });

  it('passes nothing of a refused client to the database, even what it sends past the refusal', async () => {
    const { port } = new URL(pg.url);
    const { connect } = await import('node:net');
    const socket = connect(Number(port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    const startup = Buffer.concat([
      Buffer.from([0, 0, 0, 0, 0, 3, 0, 0]),
      Buffer.from('user\0postgres\0database\0postgres\0\0'),
    ]);
    startup.writeInt32BE(startup.length, 0);
    const query = (sql: string) => {
      const body = Buffer.from(`${sql}\0`);
      const header = Buffer.from([0x51, 0, 0, 0, 0]);
      header.writeInt32BE(body.length + 4, 1);
      return Buffer.concat([header, body]);
    };
    // Skips the password and goes straight to a statement, then another.
    socket.write(Buffer.concat([startup, query('CREATE TABLE intruded (x int)'), query('SELECT 1')]));
    const received: Buffer[] = [];
    socket.on('data', (chunk) => received.push(chunk));
    await new Promise((resolve) => socket.once('close', resolve));
    const answer = Buffer.concat(received).toString('latin1');
    expect(answer).toContain('28P01');
    expect(answer).not.toContain('CREATE TABLE');
    const client = new Client({ connectionString: pg.url });
    await client.connect();
    const { rows } = await client.query("SELECT to_regclass('intruded') AS t");
    expect(rows).toEqual([{ t: null }]);
    await client.end();
  });
});
