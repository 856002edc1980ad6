import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateStatusCrlsSigners1763769800000 implements MigrationInterface {
  name = 'CreateStatusCrlsSigners1763769800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // What OCSP answers from: every certificate the tenant CA issued, by serial (RFC 6960 2.2).
    await queryRunner.query(`CREATE TABLE ocsp.certificate_status (
      tenant_id uuid NOT NULL,
      serial_number text NOT NULL,
      not_after timestamptz NOT NULL,
      revoked_at timestamptz,
      reason_code smallint,
      PRIMARY KEY (tenant_id, serial_number)
    )`);
    // The newest CRL of each tenant, as published by the revocation context.
    await queryRunner.query(`CREATE TABLE ocsp.crls (
      tenant_id uuid PRIMARY KEY,
      crl_number numeric(49, 0) NOT NULL,
      this_update timestamptz NOT NULL,
      next_update timestamptz NOT NULL,
      der bytea NOT NULL,
      sha256 text NOT NULL
    )`);
    // The responder's own delegated signing key per tenant (wrapped by custody) and its certificate.
    await queryRunner.query(`CREATE TABLE ocsp.signers (
      tenant_id uuid PRIMARY KEY,
      key_id uuid NOT NULL,
      key_algorithm text NOT NULL,
      public_key_spki bytea NOT NULL,
      wrapped_key bytea NOT NULL,
      certificate_der bytea NOT NULL,
      not_after timestamptz NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE ocsp.signers');
    await queryRunner.query('DROP TABLE ocsp.crls');
    await queryRunner.query('DROP TABLE ocsp.certificate_status');
  }
}
