import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A nonce is good only under the tenant it was issued for (docs/api.md#acme). A nonce issued before
 * (no tenant) is refused as badNonce, which every ACME client retries with the fresh one.
 */
export class NoncesPerTenant1766700000000 implements MigrationInterface {
  name = 'NoncesPerTenant1766700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE acme.nonces ADD COLUMN tenant_id text');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE acme.nonces DROP COLUMN tenant_id');
  }
}
