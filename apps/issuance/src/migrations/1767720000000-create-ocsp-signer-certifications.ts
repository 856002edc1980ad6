import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every delegated OCSP signer issuance certified (docs/security.md, "OCSP signer certificates"):
 * the audit of who holds an OCSP-signing key for a tenant, and the count behind the hourly bound
 * per tenant and certifying CA.
 */
export class CreateOcspSignerCertifications1767720000000 implements MigrationInterface {
  name = 'CreateOcspSignerCertifications1767720000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE issuance.ocsp_signer_certifications (
      serial_number text PRIMARY KEY,
      tenant_id uuid NOT NULL,
      ca_id uuid NOT NULL REFERENCES issuance.certificate_authorities (id),
      issuer text,
      public_key_sha256 text NOT NULL,
      not_after timestamptz NOT NULL,
      certified_at timestamptz NOT NULL DEFAULT now()
    )`);
    await queryRunner.query(
      'CREATE INDEX ocsp_signer_certifications_recent ON issuance.ocsp_signer_certifications (ca_id, certified_at)',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE issuance.ocsp_signer_certifications');
  }
}
