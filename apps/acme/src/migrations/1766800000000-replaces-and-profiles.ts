import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * docs/api.md#renewal-information: the certificate an order replaces (RFC 9773 5). docs/api.md#acme-profiles:
 * the tenant's profiles (draft-ietf-acme-profiles), and the one an order chose.
 */
export class ReplacesAndProfiles1766800000000 implements MigrationInterface {
  name = 'ReplacesAndProfiles1766800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE acme.orders ADD COLUMN replaces uuid, ADD COLUMN profile text');
    await queryRunner.query(`CREATE TABLE acme.profiles (
      tenant_id text NOT NULL,
      name text NOT NULL,
      description text NOT NULL,
      validity_days integer NOT NULL,
      usage text NOT NULL,
      is_default boolean NOT NULL DEFAULT false,
      PRIMARY KEY (tenant_id, name))`);
    // At most one default per tenant.
    await queryRunner.query(
      'CREATE UNIQUE INDEX profiles_one_default ON acme.profiles (tenant_id) WHERE is_default',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE acme.profiles');
    await queryRunner.query('ALTER TABLE acme.orders DROP COLUMN replaces, DROP COLUMN profile');
  }
}
