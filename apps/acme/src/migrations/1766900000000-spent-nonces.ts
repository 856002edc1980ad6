import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Nonces are no longer stored when issued (each carries its issue time and an HMAC, see
 * docs/operations.md, ACME): only spent ones are recorded, until they would have expired. Nonces
 * issued before this migration are refused as badNonce, which every ACME client retries.
 */
export class SpentNonces1766900000000 implements MigrationInterface {
  name = 'SpentNonces1766900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE TABLE acme.spent_nonces (id bytea PRIMARY KEY, expires_at timestamptz NOT NULL)',
    );
    await queryRunner.query('CREATE INDEX spent_nonces_expires_at ON acme.spent_nonces (expires_at)');
    await queryRunner.query('DROP TABLE acme.nonces');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE TABLE acme.nonces (value text PRIMARY KEY, expires_at timestamptz NOT NULL, tenant_id text)',
    );
    await queryRunner.query('DROP TABLE acme.spent_nonces');
  }
}
