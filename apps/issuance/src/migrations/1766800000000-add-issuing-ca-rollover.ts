import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * docs/api.md#add-an-issuing-ca: a tenant may get an issuing CA later, and replace it (rollover).
 * A CA added so has CRL and certificate paths of its own, which its leaves point at.
 * The replaced one is kept, `retired_at` set: it still signs the CRL and OCSP signers for the
 * certificates it signed. One root per tenant, and at most one issuing CA that is not retired,
 * enforced by the database under concurrency as one CA per role was before.
 */
export class AddIssuingCaRollover1766800000000 implements MigrationInterface {
  name = 'AddIssuingCaRollover1766800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE issuance.certificate_authorities ADD COLUMN retired_at timestamptz,
         ADD COLUMN own_distribution_points boolean NOT NULL DEFAULT false`,
    );
    await queryRunner.query(
      'ALTER TABLE issuance.certificate_authorities DROP CONSTRAINT certificate_authorities_one_per_role',
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX certificate_authorities_one_root ON issuance.certificate_authorities (tenant_id)
        WHERE role = 'root'`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX certificate_authorities_one_current_issuing ON issuance.certificate_authorities (tenant_id)
        WHERE role = 'issuing' AND retired_at IS NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX issuance.certificate_authorities_one_current_issuing');
    await queryRunner.query('DROP INDEX issuance.certificate_authorities_one_root');
    await queryRunner.query(`DELETE FROM issuance.certificate_authorities WHERE retired_at IS NOT NULL`);
    await queryRunner.query(
      `ALTER TABLE issuance.certificate_authorities
         ADD CONSTRAINT certificate_authorities_one_per_role UNIQUE (tenant_id, role)`,
    );
    await queryRunner.query(
      'ALTER TABLE issuance.certificate_authorities DROP COLUMN retired_at, DROP COLUMN own_distribution_points',
    );
  }
}
