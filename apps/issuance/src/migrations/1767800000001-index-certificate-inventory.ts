import { MigrationInterface, QueryRunner } from 'typeorm';

const INDEXES: Record<string, string> = {
  // Keyset pages of docs/api.md#search-certificates in both directions: (issued_at, id) and
  // (not_after, id) never change once a certificate is stored, so a walk meets each row once.
  certificates_inventory_by_issued: '(tenant_id, issued_at, id)',
  certificates_inventory_by_expiry: '(tenant_id, not_after, id)',
  // The summary's revoked count, read from this index alone.
  certificates_revoked_by_tenant: '(tenant_id) WHERE revoked_at IS NOT NULL',
};

/**
 * Built CONCURRENTLY (outside a transaction, hence `transaction = false`) so that a table already
 * holding millions of certificates keeps taking issuances and revocations while they build. A
 * build that was interrupted leaves an invalid index: it is dropped and built again.
 */
export class IndexCertificateInventory1767800000001 implements MigrationInterface {
  name = 'IndexCertificateInventory1767800000001';
  transaction = false as const;

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const [name, columns] of Object.entries(INDEXES)) {
      const invalid: unknown[] = await queryRunner.query(
        `SELECT 1 FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
          JOIN pg_namespace n ON n.oid = c.relnamespace
          WHERE n.nspname = 'issuance' AND c.relname = $1 AND NOT i.indisvalid`,
        [name],
      );
      if (invalid.length > 0) await queryRunner.query(`DROP INDEX CONCURRENTLY issuance.${name}`);
      await queryRunner.query(
        `CREATE INDEX CONCURRENTLY IF NOT EXISTS ${name} ON issuance.certificates ${columns}`,
      );
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const name of Object.keys(INDEXES)) {
      await queryRunner.query(`DROP INDEX CONCURRENTLY IF EXISTS issuance.${name}`);
    }
  }
}
