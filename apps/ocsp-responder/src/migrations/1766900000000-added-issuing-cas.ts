import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * docs/api.md#add-an-issuing-ca: issuing CAs added after initialization, one row per CA (its
 * certificate and revocation), each with its own CRL (served at its own path, checked before it is
 * served like the tenant's `/crl`) and its own delegated OCSP signer. The CAs made at
 * initialization keep their rows; `root_ca_id` lets the root's own path be found (known for the
 * root that signs leaves; for others from the next `ca.initialized` on).
 */
export class AddedIssuingCas1766900000000 implements MigrationInterface {
  name = 'AddedIssuingCas1766900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE ocsp.ca_certificates ADD COLUMN root_ca_id uuid');
    await queryRunner.query(
      'UPDATE ocsp.ca_certificates SET root_ca_id = ca_id WHERE root_certificate_der IS NULL',
    );
    await queryRunner.query(`CREATE TABLE ocsp.added_cas (
      ca_id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL,
      certificate_der bytea NOT NULL,
      not_after timestamptz NOT NULL,
      published_at timestamptz NOT NULL,
      revoked_at timestamptz,
      reason_code smallint
    )`);
    await queryRunner.query('CREATE INDEX added_cas_tenant ON ocsp.added_cas (tenant_id, published_at)');
    await queryRunner.query(`CREATE TABLE ocsp.ca_crls (
      ca_id uuid PRIMARY KEY,
      crl_number numeric(49, 0) NOT NULL,
      this_update timestamptz NOT NULL,
      next_update timestamptz NOT NULL,
      der bytea NOT NULL,
      sha256 text NOT NULL
    )`);
    await queryRunner.query(`CREATE TABLE ocsp.pending_ca_crls (
      ca_id uuid NOT NULL,
      crl_number numeric(49, 0) NOT NULL,
      this_update timestamptz NOT NULL,
      next_update timestamptz NOT NULL,
      blob_ref text NOT NULL,
      sha256 text NOT NULL,
      PRIMARY KEY (ca_id, crl_number, sha256)
    )`);
    await queryRunner.query(`CREATE TABLE ocsp.ca_signers (
      ca_id uuid PRIMARY KEY,
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
    await queryRunner.query('DROP TABLE ocsp.ca_signers');
    await queryRunner.query('DROP TABLE ocsp.pending_ca_crls');
    await queryRunner.query('DROP TABLE ocsp.ca_crls');
    await queryRunner.query('DROP TABLE ocsp.added_cas');
    await queryRunner.query('ALTER TABLE ocsp.ca_certificates DROP COLUMN root_ca_id');
  }
}
