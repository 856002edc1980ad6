import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The issuance policy of each tenant (docs/api.md#issuance-policy): the DNS suffixes its
 * certificates may name. No row: no policy, any valid name. An empty array: no DNS name at all.
 * Owned here because issuance is where every issuance decision is made.
 */
export class CreateIssuancePolicies1766400000000 implements MigrationInterface {
  name = 'CreateIssuancePolicies1766400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE issuance.issuance_policies (
      tenant_id uuid PRIMARY KEY,
      allowed_dns_suffixes text[] NOT NULL,
      updated_at timestamptz NOT NULL,
      updated_by text NOT NULL
    )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE issuance.issuance_policies');
  }
}
