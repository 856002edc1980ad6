import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * On each revocation (of a certificate, or of an issuing CA for root.crl), the revocation time a
 * signed CRL first listed: every later CRL of that CA must list it again (docs/security.md, "CRL
 * signing matches issuance's ledger"), whatever thisUpdate it claims. Null: not listed yet; a
 * value other than `revoked_at`: an earlier revocation of the certificate (a hold since released).
 */
export class CrlListedRevocations1767710000000 implements MigrationInterface {
  name = 'CrlListedRevocations1767710000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // Every revocation up to this time was listed by a signed CRL of the CA (the ones after it that
    // were, one by one, in crl_listed_revoked_at).
    await queryRunner.query('ALTER TABLE issuance.crl_numbers ADD COLUMN complete_up_to timestamptz');
    await queryRunner.query('ALTER TABLE issuance.certificates ADD COLUMN crl_listed_revoked_at timestamptz');
    await queryRunner.query(
      'ALTER TABLE issuance.certificate_authorities ADD COLUMN crl_listed_revoked_at timestamptz',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE issuance.crl_numbers DROP COLUMN complete_up_to');
    await queryRunner.query('ALTER TABLE issuance.certificates DROP COLUMN crl_listed_revoked_at');
    await queryRunner.query('ALTER TABLE issuance.certificate_authorities DROP COLUMN crl_listed_revoked_at');
  }
}
