import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * docs/api.md#distribution-points: the root's CRL (`root.crl`) of a tenant with an issuing CA,
 * kept apart from the CRL of the CA that signs leaves, with its own pending announcements; checked
 * against `ca_certificates.root_certificate_der` before it is served (crls/crl.store.ts).
 */
export class CreateRootCrls1766700000000 implements MigrationInterface {
  name = 'CreateRootCrls1766700000000';

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
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE ocsp.pending_root_crls');
    await queryRunner.query('DROP TABLE ocsp.root_crls');
  }
}
