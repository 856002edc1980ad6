import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The newest revocation time the last signed CRL of each CA listed: every later CRL of that CA
 * must list every revocation up to it (docs/security.md, "CRL signing matches issuance's ledger"),
 * so no later number can leave out a revocation a CRL already told. Null: none listed yet.
 */
export class CrlListedUpTo1767610000000 implements MigrationInterface {
  name = 'CrlListedUpTo1767610000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE issuance.crl_numbers ADD COLUMN listed_up_to timestamptz');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE issuance.crl_numbers DROP COLUMN listed_up_to');
  }
}
