import { MigrationInterface, QueryRunner } from 'typeorm';

const INDEX = 'certificates_inventory_search';

/**
 * docs/api.md#search-certificates `q`: a trigram index over the searched text, so a substring
 * search reads the index instead of every certificate of the tenant. pg_trgm ships with PostgreSQL
 * and PGlite; where issuance's database role may not create it (the production roles), the
 * operator's set-up does (deploy/postgres/init-roles.sql). Without it, `q` still works, by a scan
 * of the tenant's rows. Built CONCURRENTLY, outside a transaction, like the other inventory indexes.
 */
export class IndexCertificateSearch1767800000003 implements MigrationInterface {
  name = 'IndexCertificateSearch1767800000003';
  transaction = false as const;

  async up(queryRunner: QueryRunner): Promise<void> {
    const schema = await trigramSchema(queryRunner);
    if (!schema) return;
    const invalid: unknown[] = await queryRunner.query(
      `SELECT 1 FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
        JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'issuance' AND c.relname = $1 AND NOT i.indisvalid`,
      [INDEX],
    );
    if (invalid.length > 0) await queryRunner.query(`DROP INDEX CONCURRENTLY issuance.${INDEX}`);
    await queryRunner.query(
      `CREATE INDEX CONCURRENTLY IF NOT EXISTS ${INDEX} ON issuance.certificates
         USING gin (issuance.inventory_search_text(common_name, client_id, serial_number, dns_names) "${schema}".gin_trgm_ops)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX CONCURRENTLY IF EXISTS issuance.${INDEX}`);
  }
}

/** The schema of pg_trgm, created here when this role may; undefined when it is not available. */
async function trigramSchema(queryRunner: QueryRunner): Promise<string | undefined> {
  const find = async () => {
    const rows: { schema: string }[] = await queryRunner.query(
      `SELECT n.nspname AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
        WHERE e.extname = 'pg_trgm'`,
    );
    return rows[0]?.schema;
  };
  const present = await find();
  if (present) return present;
  try {
    // In public, as the operator's set-up makes it (deploy/postgres/init-roles.sql): a dump of the
    // service schemas holds no extension, and a restore creates it there first (operations.md).
    await queryRunner.query('CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public');
  } catch {
    return undefined; // no privilege (or not installed): `q` scans instead
  }
  return find();
}
