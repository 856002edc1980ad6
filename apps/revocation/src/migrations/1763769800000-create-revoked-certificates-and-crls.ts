import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateRevokedCertificatesAndCrls1763769800000 implements MigrationInterface {
  name = 'CreateRevokedCertificatesAndCrls1763769800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // The CRL's source: one row per revoked serial of a tenant CA (RFC 5280 5.1.2.6).
    await queryRunner.query(`CREATE TABLE revocation.revoked_certificates (
      tenant_id uuid NOT NULL REFERENCES revocation.crl_issuers (tenant_id),
      serial_number text NOT NULL,
      certificate_id uuid NOT NULL,
      revocation_date timestamptz NOT NULL,
      reason_code smallint NOT NULL,
      PRIMARY KEY (tenant_id, serial_number)
    )`);
    // Signed CRLs; the newest per tenant is what gets published.
    await queryRunner.query(`CREATE TABLE revocation.crls (
      tenant_id uuid NOT NULL REFERENCES revocation.crl_issuers (tenant_id),
      crl_number bigint NOT NULL,
      this_update timestamptz NOT NULL,
      next_update timestamptz NOT NULL,
      entry_count integer NOT NULL,
      der bytea NOT NULL,
      PRIMARY KEY (tenant_id, crl_number)
    )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE revocation.crls');
    await queryRunner.query('DROP TABLE revocation.revoked_certificates');
  }
}
