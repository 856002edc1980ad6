import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * When each revocation was recorded (the database's clock), so a CRL build reads only the entries
 * recorded since the previous one (a CRL of 100,000 entries rebuilt after each change).
 * Rows recorded before this migration all get its time: the first build reads them in full anyway.
 */
export class AddRecordedAtToRevokedCertificates1765000000000 implements MigrationInterface {
  name = 'AddRecordedAtToRevokedCertificates1765000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'ALTER TABLE revocation.revoked_certificates ADD COLUMN recorded_at timestamptz NOT NULL DEFAULT now()',
    );
    await queryRunner.query(
      'CREATE INDEX revoked_certificates_recorded_at ON revocation.revoked_certificates (tenant_id, recorded_at)',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX revocation.revoked_certificates_recorded_at');
    await queryRunner.query('ALTER TABLE revocation.revoked_certificates DROP COLUMN recorded_at');
  }
}
