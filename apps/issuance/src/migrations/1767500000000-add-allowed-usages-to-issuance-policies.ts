import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The leaf usages a tenant's policy allows (docs/api.md#issuance-policy `allowedUsages`): Client,
 * Server or both. Null (the policies stored before this column): both, as before.
 */
export class AddAllowedUsagesToIssuancePolicies1767500000000 implements MigrationInterface {
  name = 'AddAllowedUsagesToIssuancePolicies1767500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE issuance.issuance_policies ADD COLUMN allowed_usages text[]');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE issuance.issuance_policies DROP COLUMN allowed_usages');
  }
}
