import { MigrationInterface, QueryRunner } from 'typeorm';

/** Tenants, created on first use: status and plan limit (docs/api.md#operator-commands, docs/api.md#plan-limit). */
export class CreateTenants1764633600000 implements MigrationInterface {
  name = 'CreateTenants1764633600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE gateway.tenants (
      tenant_id uuid PRIMARY KEY,
      status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'suspended')),
      -- NULL: DEFAULT_CERTIFICATE_LIMIT of the running gateway.
      certificate_limit integer CHECK (certificate_limit >= 0),
      -- NULL: the default tier (30 days). docs/api.md#limits: from 30 days to 1 year.
      audit_retention_days integer CHECK (audit_retention_days BETWEEN 30 AND 365),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE gateway.tenants');
  }
}
