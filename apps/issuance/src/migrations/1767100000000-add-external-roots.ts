import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * docs/api.md#external-root: an issuing CA whose key we hold but whose certificate the tenant's
 * corporate root makes. Until it is uploaded the CA is pending (its key and CSR, one per tenant);
 * then it becomes an issuing CA row like any other, under a root row holding the corporate root's
 * certificate only (`key_custody` 'external', no key), and the intermediates between the two.
 */
export class AddExternalRoots1767100000000 implements MigrationInterface {
  name = 'AddExternalRoots1767100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE issuance.pending_cas (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL,
      common_name text NOT NULL,
      organization text NOT NULL,
      country text NOT NULL,
      key_custody text NOT NULL,
      key_algorithm text NOT NULL,
      public_key_spki bytea NOT NULL,
      wrapped_key bytea NOT NULL,
      csr_der bytea NOT NULL,
      created_at timestamptz NOT NULL,
      created_by text,
      CONSTRAINT pending_cas_one_per_tenant UNIQUE (tenant_id)
    )`);
    await queryRunner.query(
      'ALTER TABLE issuance.certificate_authorities ADD COLUMN external_intermediates_pem text',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'ALTER TABLE issuance.certificate_authorities DROP COLUMN external_intermediates_pem',
    );
    await queryRunner.query('DROP TABLE issuance.pending_cas');
  }
}
