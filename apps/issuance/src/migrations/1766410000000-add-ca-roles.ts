import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * docs/api.md#initialize-the-ca-v2: a tenant may have a root and an issuing CA under it. Every
 * existing row is a root (as /v1/ca/initialize made it); a tenant has at most one CA per role,
 * which the database enforces under concurrency as it enforced one CA per tenant before.
 */
export class AddCaRoles1766410000000 implements MigrationInterface {
  name = 'AddCaRoles1766410000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE issuance.certificate_authorities
      ADD COLUMN role text NOT NULL DEFAULT 'root' CHECK (role IN ('root', 'issuing')),
      ADD COLUMN issuer_ca_id uuid REFERENCES issuance.certificate_authorities (id),
      ADD CONSTRAINT certificate_authorities_issuer_by_role CHECK ((role = 'root') = (issuer_ca_id IS NULL))`);
    await queryRunner.query(
      'ALTER TABLE issuance.certificate_authorities DROP CONSTRAINT certificate_authorities_one_per_tenant',
    );
    await queryRunner.query(
      `ALTER TABLE issuance.certificate_authorities
         ADD CONSTRAINT certificate_authorities_one_per_role UNIQUE (tenant_id, role)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query("DELETE FROM issuance.certificate_authorities WHERE role = 'issuing'");
    await queryRunner.query(
      'ALTER TABLE issuance.certificate_authorities DROP CONSTRAINT certificate_authorities_one_per_role',
    );
    await queryRunner.query(
      'ALTER TABLE issuance.certificate_authorities ADD CONSTRAINT certificate_authorities_one_per_tenant UNIQUE (tenant_id)',
    );
    await queryRunner.query(
      `ALTER TABLE issuance.certificate_authorities DROP CONSTRAINT certificate_authorities_issuer_by_role,
         DROP COLUMN issuer_ca_id, DROP COLUMN role`,
    );
  }
}
