import { MigrationInterface, QueryRunner } from 'typeorm';

/** Per-tenant request counts in fixed one-minute windows, shared by every gateway replica. */
export class CreateRateLimitWindows1764633800000 implements MigrationInterface {
  name = 'CreateRateLimitWindows1764633800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE gateway.rate_limit_windows (
      tenant_id uuid NOT NULL,
      window_start timestamptz NOT NULL,
      count integer NOT NULL,
      PRIMARY KEY (tenant_id, window_start)
    )`);
    await queryRunner.query(
      `CREATE INDEX rate_limit_windows_by_start ON gateway.rate_limit_windows (window_start)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE gateway.rate_limit_windows');
  }
}
