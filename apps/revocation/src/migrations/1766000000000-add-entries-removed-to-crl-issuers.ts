import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * How many entries a tenant's ledger has lost (released certificateHolds). The CRL entries cache
 * only ever appends; a changed count tells every replica to read the tenant's entries again.
 */
export class AddEntriesRemovedToCrlIssuers1766000000000 implements MigrationInterface {
  name = 'AddEntriesRemovedToCrlIssuers1766000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'ALTER TABLE revocation.crl_issuers ADD COLUMN entries_removed bigint NOT NULL DEFAULT 0',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE revocation.crl_issuers DROP COLUMN entries_removed');
  }
}
