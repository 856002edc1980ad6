import { MigrationInterface, QueryRunner } from 'typeorm';
import { openSchemaDataSource } from './schema-data-source';
import { TestDatabase, createTestDatabase } from './testing';

/** A migration that takes a while, so two replicas starting together overlap in it. */
class CreateSlowTable1700000000000 implements MigrationInterface {
  name = 'CreateSlowTable1700000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('CREATE TABLE replicated.things (id serial PRIMARY KEY)');
    await queryRunner.query('SELECT pg_sleep(0.5)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE replicated.things');
  }
}

// Embedded mode runs each service once, in one process; replicas need a real server.
const onPostgres = process.env.DATABASE_URL ? describe : describe.skip;
if (!process.env.DATABASE_URL)
  process.stderr.write('schema data source: DATABASE_URL not set, replica start skipped\n');

onPostgres('two replicas opening one schema together', () => {
  let database: TestDatabase;

  beforeAll(async () => (database = await createTestDatabase('postgres')), 60_000);
  afterAll(() => database?.drop(), 60_000);

  it('both start: the migrations run once, the other replica waits for them', async () => {
    const open = () =>
      openSchemaDataSource({
        url: database.url,
        schema: 'replicated',
        entities: [],
        migrations: [CreateSlowTable1700000000000],
        poolSize: 2,
      });
    const [a, b] = await Promise.all([open(), open()]);
    try {
      const ran: unknown[] = await a.query('SELECT name FROM replicated.migrations');
      expect(ran).toHaveLength(1);
    } finally {
      await a.destroy();
      await b.destroy();
    }
  }, 30_000);
});
