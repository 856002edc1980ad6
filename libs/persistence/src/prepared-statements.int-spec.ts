import { Pool } from 'pg';
import { PreparingClient, prepared } from './prepared-statements';
import { TestDatabase, createTestDatabase, databaseKinds } from './testing';

const MARKED = prepared('SELECT $1::int * 2 AS doubled');

describe.each(databaseKinds())('prepared statements (%s)', (kind) => {
  let database: TestDatabase;
  let pool: Pool;

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    pool = new Pool({ connectionString: database.url, max: 3, Client: PreparingClient });
  }, 60_000);
  afterAll(async () => {
    await pool?.end();
    await database?.drop();
  }, 60_000);

  /** The statements the session of `client` holds prepared. */
  const held = async (client: { query: Pool['query'] }) =>
    (await client.query<{ statement: string }>('SELECT statement FROM pg_prepared_statements')).rows.map(
      (row) => row.statement,
    );

  it('prepares a marked text once per connection and answers it like any query, in both call styles', async () => {
    const client = await pool.connect();
    try {
      for (let n = 1; n <= 7; n++)
        expect((await client.query(MARKED, [n])).rows).toEqual([{ doubled: 2 * n }]);
      const viaCallback = await new Promise((resolve, reject) =>
        client.query(MARKED, [21], (error: Error | null, result: { rows: unknown[] }) =>
          error ? reject(error) : resolve(result.rows),
        ),
      );
      expect(viaCallback).toEqual([{ doubled: 42 }]);
      expect(await held(client)).toEqual([MARKED]);
      // Another text runs unnamed: nothing more is held.
      expect((await client.query('SELECT $1::int * 3 AS tripled', [2])).rows).toEqual([{ tripled: 6 }]);
      expect(await held(client)).toEqual([MARKED]);
    } finally {
      client.release();
    }
  });

  it('answers a marked text on every connection of the pool at once', async () => {
    const answers = await Promise.all(Array.from({ length: 12 }, (_, n) => pool.query(MARKED, [n])));
    expect(answers.map((answer) => answer.rows[0].doubled)).toEqual(
      Array.from({ length: 12 }, (_, n) => 2 * n),
    );
  });
});
