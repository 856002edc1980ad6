import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * docs/api.md#revoke-an-issuing-ca: an operator may revoke an issuing CA (key compromise). Its root
 * then lists it on root.crl and issuance signs nothing more with it.
 */
export class AddRevocationToCas1766700000000 implements MigrationInterface {
  name = 'AddRevocationToCas1766700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE issuance.certificate_authorities
      ADD COLUMN revoked_at timestamptz,
      ADD COLUMN revocation_reason text,
      ADD COLUMN revocation_reason_code smallint,
      ADD COLUMN revoked_by text,
      ADD CONSTRAINT certificate_authorities_only_issuing_revoked CHECK (revoked_at IS NULL OR role = 'issuing')`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE issuance.certificate_authorities
      DROP CONSTRAINT certificate_authorities_only_issuing_revoked,
      DROP COLUMN revoked_at, DROP COLUMN revocation_reason, DROP COLUMN revocation_reason_code, DROP COLUMN revoked_by`);
  }
}
