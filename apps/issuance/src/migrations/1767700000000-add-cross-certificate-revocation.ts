import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * docs/api.md#revoke-a-cross-certificate: the cross certificate a retired root signed for the root
 * that replaced it can be revoked; it then goes on the retired root's CRL. Kept on the renewed
 * root's row beside the cross certificate itself, with its serial (the CRL ledger check reads it).
 */
export class AddCrossCertificateRevocation1767700000000 implements MigrationInterface {
  name = 'AddCrossCertificateRevocation1767700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE issuance.certificate_authorities
         ADD COLUMN cross_serial_number text,
         ADD COLUMN cross_revoked_at timestamptz,
         ADD COLUMN cross_revocation_reason text,
         ADD COLUMN cross_revocation_reason_code smallint,
         ADD COLUMN cross_revoked_by text,
         ADD CONSTRAINT certificate_authorities_cross_revocation
           CHECK (cross_revoked_at IS NULL OR (cross_certificate_der IS NOT NULL AND cross_serial_number IS NOT NULL
                  AND cross_revocation_reason_code IS NOT NULL))`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE issuance.certificate_authorities DROP CONSTRAINT certificate_authorities_cross_revocation,
         DROP COLUMN cross_serial_number, DROP COLUMN cross_revoked_at, DROP COLUMN cross_revocation_reason,
         DROP COLUMN cross_revocation_reason_code, DROP COLUMN cross_revoked_by`,
    );
  }
}
