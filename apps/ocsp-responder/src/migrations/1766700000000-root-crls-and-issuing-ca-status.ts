import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * docs/api.md#distribution-points and docs/api.md#ocsp: the root's CRL (`root.crl`) of a tenant with an issuing CA,
 * kept apart from the CRL of the CA that signs leaves, with its own pending announcements; checked
 * against `ca_certificates.root_certificate_der` before it is served (crls/crl.store.ts).
 */
export class RootCrlsAndIssuingCaStatus1766700000000 implements MigrationInterface {
  name = 'RootCrlsAndIssuingCaStatus1766700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE ocsp.root_crls (
      tenant_id uuid PRIMARY KEY,
      crl_number numeric(49, 0) NOT NULL,
      this_update timestamptz NOT NULL,
      next_update timestamptz NOT NULL,
      der bytea NOT NULL,
      sha256 text NOT NULL
    )`);
    await queryRunner.query(`CREATE TABLE ocsp.pending_root_crls (
      tenant_id uuid NOT NULL,
      crl_number numeric(49, 0) NOT NULL,
      this_update timestamptz NOT NULL,
      next_update timestamptz NOT NULL,
      blob_ref text NOT NULL,
      sha256 text NOT NULL,
      PRIMARY KEY (tenant_id, crl_number, sha256)
    )`);
    // OCSP for the issuing CA itself: its revocation, and a second delegated signer per tenant,
    // certified by the root (signers/ocsp-signer.keeper.ts).
    await queryRunner.query(`ALTER TABLE ocsp.ca_certificates
      ADD COLUMN issuing_revoked_at timestamptz, ADD COLUMN issuing_reason_code smallint`);
    await queryRunner.query(`CREATE TABLE ocsp.root_signers (
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
    await queryRunner.query('DROP TABLE ocsp.root_signers');
    await queryRunner.query(
      'ALTER TABLE ocsp.ca_certificates DROP COLUMN issuing_revoked_at, DROP COLUMN issuing_reason_code',
    );
    await queryRunner.query('DROP TABLE ocsp.pending_root_crls');
    await queryRunner.query('DROP TABLE ocsp.root_crls');
  }
}
