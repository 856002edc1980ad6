import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * docs/api.md#chains: a tenant with an issuing CA. `ca_id` and `certificate_der` stay the CA that
 * signs leaves, CRLs and the OCSP signer (the issuing CA when there is one), so every check against
 * them holds unchanged; `root_certificate_der` keeps the root served as ca.pem when it differs.
 */
export class AddIssuingCaCertificates1766410000000 implements MigrationInterface {
  name = 'AddIssuingCaCertificates1766410000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE ocsp.ca_certificates ADD COLUMN root_certificate_der bytea');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE ocsp.ca_certificates DROP COLUMN root_certificate_der');
  }
}
