import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * docs/api.md#replace-now: `replace_after` is when the tenant asked for the leaf to be replaced
 * (its ARI window then ends there). Indexes for the two look-ups that come with it: a certificate
 * by serial (ARI certID) and a certificate's successor (`renewed_from`).
 */
export class AddReplacementToCertificates1767900000000 implements MigrationInterface {
  name = 'AddReplacementToCertificates1767900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE issuance.certificates ADD COLUMN replace_after timestamptz');
    await queryRunner.query(
      'CREATE INDEX certificates_tenant_serial_idx ON issuance.certificates (tenant_id, serial_number)',
    );
    await queryRunner.query(
      'CREATE INDEX certificates_renewed_from_idx ON issuance.certificates (renewed_from)',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX issuance.certificates_renewed_from_idx');
    await queryRunner.query('DROP INDEX issuance.certificates_tenant_serial_idx');
    await queryRunner.query('ALTER TABLE issuance.certificates DROP COLUMN replace_after');
  }
}
