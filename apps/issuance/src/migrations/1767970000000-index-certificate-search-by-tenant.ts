import { MigrationInterface, QueryRunner } from 'typeorm';

export const SEARCH_BY_TENANT_INDEX = 'certificates_inventory_search_by_tenant';
const GLOBAL_SEARCH_INDEX = 'certificates_inventory_search';
/** The same columns as certificates_inventory_by_issued, whose backward scan serves every order it served. */
const DUPLICATE_INDEX = 'certificates_by_tenant_issued';

/**
 * docs/api.md#search-certificates `q` within one tenant: a GIN index of the tenant id (btree_gin)
 * and the searched text's trigrams (pg_trgm), so a search reads the trigram lists together with
 * the tenant's own list and rechecks only the tenant's rows, instead of every tenant's matches
 * (docs/architecture.md#inventory-search). Replaces the trigram index of all tenants once built.
 * Also drops an index the inventory's made a duplicate of.
 *
 * Everything CONCURRENTLY, outside a transaction (`transaction = false`), like the earlier
 * inventory indexes: a table already holding millions of certificates keeps taking issuances and
 * revocations while the index builds (minutes), and a build that was interrupted (an invalid
 * index) is dropped and built again. btree_gin ships with PostgreSQL and PGlite; where issuance's
 * role may not create it (the production roles), the operator's set-up does
 * (deploy/postgres/init-roles.sql); without it the trigram index of all tenants stays.
 */
export class IndexCertificateSearchByTenant1767970000000 implements MigrationInterface {
  name = 'IndexCertificateSearchByTenant1767970000000';
  transaction = false as const;

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX CONCURRENTLY IF EXISTS issuance.${DUPLICATE_INDEX}`);
    const trigram = await extensionSchema(queryRunner, 'pg_trgm');
    // btree_gin: the default GIN operator class of uuid.
    const btreeGin = trigram ? await extensionSchema(queryRunner, 'btree_gin') : undefined;
    if (!trigram || !btreeGin) return;
    const invalid: unknown[] = await queryRunner.query(
      `SELECT 1 FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
        JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'issuance' AND c.relname = $1 AND NOT i.indisvalid`,
      [SEARCH_BY_TENANT_INDEX],
    );
    if (invalid.length > 0)
      await queryRunner.query(`DROP INDEX CONCURRENTLY issuance.${SEARCH_BY_TENANT_INDEX}`);
    await queryRunner.query(
      `CREATE INDEX CONCURRENTLY IF NOT EXISTS ${SEARCH_BY_TENANT_INDEX} ON issuance.certificates
         USING gin (tenant_id,
                    issuance.inventory_search_text(common_name, client_id, serial_number, dns_names) "${trigram}".gin_trgm_ops)`,
    );
    await queryRunner.query(`DROP INDEX CONCURRENTLY IF EXISTS issuance.${GLOBAL_SEARCH_INDEX}`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX CONCURRENTLY IF NOT EXISTS ${DUPLICATE_INDEX} ON issuance.certificates (tenant_id, issued_at DESC, id)`,
    );
    const trigram = await extensionSchema(queryRunner, 'pg_trgm');
    if (trigram) {
      await queryRunner.query(
        `CREATE INDEX CONCURRENTLY IF NOT EXISTS ${GLOBAL_SEARCH_INDEX} ON issuance.certificates
           USING gin (issuance.inventory_search_text(common_name, client_id, serial_number, dns_names) "${trigram}".gin_trgm_ops)`,
      );
    }
    await queryRunner.query(`DROP INDEX CONCURRENTLY IF EXISTS issuance.${SEARCH_BY_TENANT_INDEX}`);
  }
}

/** The schema of an extension, created (in public) here when this role may; undefined when it is not available. */
async function extensionSchema(queryRunner: QueryRunner, name: string): Promise<string | undefined> {
  const find = async () => {
    const rows: { schema: string }[] = await queryRunner.query(
      `SELECT n.nspname AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
        WHERE e.extname = $1`,
      [name],
    );
    return rows[0]?.schema;
  };
  const present = await find();
  if (present) return present;
  try {
    // In public, as the operator's set-up makes it (deploy/postgres/init-roles.sql).
    await queryRunner.query(`CREATE EXTENSION IF NOT EXISTS ${name} SCHEMA public`);
  } catch {
    return undefined; // no privilege (or not installed)
  }
  return find();
}
