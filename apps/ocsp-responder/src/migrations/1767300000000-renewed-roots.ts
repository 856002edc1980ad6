import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * docs/api.md#renew-the-root: a tenant's new root is kept with the CAs added after
 * initialization, as a row of `role` root with the cross certificate its previous root signed; its
 * CRL (per CA, like an added issuing CA's) and its delegated OCSP signer (for the issuing CAs it
 * signs) follow from that. An added issuing CA records the root that signed it, so OCSP answers
 * for it only under that root (RFC 6960 4.1.1: a CertID is issuer and serial).
 */
export class RenewedRoots1767300000000 implements MigrationInterface {
  name = 'RenewedRoots1767300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE ocsp.added_cas
      ADD COLUMN role text NOT NULL DEFAULT 'issuing' CHECK (role IN ('issuing', 'root')),
      ADD COLUMN issuer_ca_id uuid,
      ADD COLUMN cross_certificate_der bytea,
      ADD CONSTRAINT added_cas_cross_of_roots CHECK ((role = 'root') = (cross_certificate_der IS NOT NULL))`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `DELETE FROM ocsp.ca_crls WHERE ca_id IN (SELECT ca_id FROM ocsp.added_cas WHERE role = 'root')`,
    );
    await queryRunner.query(
      `DELETE FROM ocsp.ca_signers WHERE ca_id IN (SELECT ca_id FROM ocsp.added_cas WHERE role = 'root')`,
    );
    await queryRunner.query(`DELETE FROM ocsp.added_cas WHERE role = 'root'`);
    await queryRunner.query(`ALTER TABLE ocsp.added_cas DROP CONSTRAINT added_cas_cross_of_roots,
      DROP COLUMN cross_certificate_der, DROP COLUMN issuer_ca_id, DROP COLUMN role`);
  }
}
