import { Client } from 'pg';
import { DataSource, EntitySchema, MixedList } from 'typeorm';
import { isUniqueViolation } from './is-unique-violation';

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
    extra: { max: options.poolSize ?? 5 },
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
 */
async function whileHoldingMigrationLock<T>(url: string, schema: string, work: () => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [`${schema} migrations`]);
    return await work();
  } finally {
    // Ending the session releases the lock too.
    await client.end();
  }
}

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
