import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'pg';
import { EmbeddedPostgres, startEmbeddedPostgres } from './embedded-postgres';

jest.setTimeout(60_000);

describe('embedded Postgres (PGlite)', () => {
  let dataDir: string;
  let pg: EmbeddedPostgres;
  let client: Client;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'embedded-pg-'));
    pg = await startEmbeddedPostgres(dataDir, 200);
    client = new Client({ connectionString: pg.url });
    await client.connect();
  });

  afterAll(async () => {
    await client?.end();
    await pg?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('reuses the space of pruned rows (PGlite has no autovacuum): a table pruned and refilled stays its size', async () => {
    await client.query('CREATE TABLE churn (id int PRIMARY KEY, body text NOT NULL)');
    const size = async () =>
      Number((await client.query<{ s: string }>("SELECT pg_total_relation_size('churn') AS s")).rows[0].s);
    let next = 0;
    const fill = () =>
      client.query(`INSERT INTO churn SELECT g, repeat('x', 500) FROM generate_series($1::int, $2::int) g`, [
        next + 1,
        (next += 2000),
      ]);
    await fill();
    const filled = await size();
    for (let round = 0; round < 3; round++) {
      await client.query('DELETE FROM churn');
      await sleep(1_000); // a few vacuum intervals
      await fill();
    }
    // Without the vacuum each round adds a full table's worth: four times the size.
    expect(await size()).toBeLessThan(filled * 1.5);
  });
});
