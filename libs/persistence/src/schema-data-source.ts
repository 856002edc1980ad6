import { Client } from 'pg';
import { DataSource, EntitySchema, MixedList } from 'typeorm';
import { isUniqueViolation } from './is-unique-violation';
import { PreparingClient } from './prepared-statements';

export interface SchemaDataSourceOptions {
  url: string;
  /** The Postgres schema this service owns; its migrations table lives inside it. */
  schema: string;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  entities: MixedList<Function | string | EntitySchema>;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  migrations: MixedList<Function | string>;
  poolSize?: number;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]*$/;

/**
 * One DataSource per bounded context, bound to its own schema. The schema is created before
 * the first migration (TypeORM does not), then the migrations run; never `synchronize`.
 */
export async function openSchemaDataSource(options: SchemaDataSourceOptions): Promise<DataSource> {
  if (!SCHEMA_NAME.test(options.schema)) throw new Error(`invalid schema name: ${options.schema}`);
  await ensureSchema(options.url, options.schema);
  const dataSource = new DataSource({
    type: 'postgres',
    url: options.url,
    schema: options.schema,
    entities: options.entities,
    migrations: options.migrations,
    migrationsTableName: 'migrations',
    synchronize: false,
    logging: false,
    // No search_path: PGlite serves every connection from one session, so SQL names its schema.
    // Statements marked with prepared() run as named statements (prepared-statements.ts).
    extra: { max: options.poolSize ?? 5, Client: PreparingClient },
  });
  await dataSource.initialize();
  try {
    await whileHoldingMigrationLock(options.url, options.schema, () =>
      dataSource.runMigrations({ transaction: 'each' }),
    );
  } catch (error) {
    await dataSource.destroy();
    throw error;
  }
  return dataSource;
}

/**
 * Replicas starting together would otherwise run the same migration at once, and all but one
 * fail on the catalog's unique keys. A session-level advisory lock per schema, on a connection
 * of its own, makes them take turns; the later ones find the migrations done. (PGlite is one
 * session and one process: the lock never waits there.)
 * The lock is tried, not waited for: a `CREATE INDEX CONCURRENTLY` in the holder's migrations
 * waits for every statement older than it in the database, and a replica blocked inside
 * `pg_advisory_lock` would be one it waits for forever (a deadlock Postgres cannot see, since
 * the lock is held by another session of the holder's process).
 */
async function whileHoldingMigrationLock<T>(url: string, schema: string, work: () => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    for (;;) {
      const { rows } = await client.query<{ locked: boolean }>(
        'SELECT pg_try_advisory_lock(hashtext($1)) AS locked',
        [`${schema} migrations`],
      );
      if (rows[0]?.locked) break;
      await new Promise((resolve) => setTimeout(resolve, MIGRATION_LOCK_RETRY_MS));
    }
    return await work();
  } finally {
    // Ending the session releases the lock too.
    await client.end();
  }
}

/** How often a replica tries again for the migration lock another replica holds. */
const MIGRATION_LOCK_RETRY_MS = 200;

async function ensureSchema(url: string, schema: string): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    // A role that owns its schema but may not create schemas (docs/security.md, "Database roles")
    // is refused even CREATE SCHEMA IF NOT EXISTS, so an existing schema is left alone.
    const existing = await client.query(`SELECT 1 FROM pg_namespace WHERE nspname = $1`, [schema]);
    if (existing.rowCount) return;
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
  } catch (error) {
    // Two replicas starting together can race on IF NOT EXISTS; the loser sees 23505.
    if (!isUniqueViolation(error)) throw error;
  } finally {
    await client.end();
  }
}
