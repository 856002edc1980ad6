import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * docs/api.md#external-root: a tenant whose root is its corporate root, of which we hold no key.
 * Its root then has no root.crl and no OCSP signer here; OCSP about its issuing CA is `unauthorized`
 * (the corporate root answers for it).
 */
export class ExternalRoots1767100000001 implements MigrationInterface {
  name = 'ExternalRoots1767100000001';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'ALTER TABLE ocsp.ca_certificates ADD COLUMN external_root boolean NOT NULL DEFAULT false',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE ocsp.ca_certificates DROP COLUMN external_root');
  }
}
