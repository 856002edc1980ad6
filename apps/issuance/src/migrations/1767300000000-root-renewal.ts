import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * docs/api.md#renew-the-root: a tenant may get a new root. The replaced root is kept, `retired_at`
 * set: it still signs its CRL and the OCSP signer for the issuing CAs it signed. A root made by
 * renewal names the root it replaced and keeps the cross certificate that root signed for it. At
 * most one root per tenant that is not retired, enforced by the database under concurrency as one
 * root per tenant was before.
 */
export class RootRenewal1767300000000 implements MigrationInterface {
  name = 'RootRenewal1767300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE issuance.certificate_authorities
         ADD COLUMN previous_root_ca_id uuid REFERENCES issuance.certificate_authorities (id),
         ADD COLUMN cross_certificate_der bytea,
         ADD CONSTRAINT certificate_authorities_cross_with_previous
           CHECK ((previous_root_ca_id IS NULL) = (cross_certificate_der IS NULL))`,
    );
    await queryRunner.query('DROP INDEX issuance.certificate_authorities_one_root');
    await queryRunner.query(
      `CREATE UNIQUE INDEX certificate_authorities_one_current_root ON issuance.certificate_authorities (tenant_id)
        WHERE role = 'root' AND retired_at IS NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    // Fails while a tenant has a renewed root: its CAs and certificates cannot be dropped silently.
    await queryRunner.query('DROP INDEX issuance.certificate_authorities_one_current_root');
    await queryRunner.query(
      `CREATE UNIQUE INDEX certificate_authorities_one_root ON issuance.certificate_authorities (tenant_id)
        WHERE role = 'root'`,
    );
    await queryRunner.query(
      `ALTER TABLE issuance.certificate_authorities DROP CONSTRAINT certificate_authorities_cross_with_previous,
         DROP COLUMN cross_certificate_der, DROP COLUMN previous_root_ca_id`,
    );
  }
}
