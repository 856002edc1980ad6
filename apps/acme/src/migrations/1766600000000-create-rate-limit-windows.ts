import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * ACME request counts in fixed one-minute windows, shared by every acme replica. A key is what the
 * limiter counts: `tenant:<id>`, `source:<tenant>:<address>`, `account:<id>`, `orders:<account>`.
 */
export class CreateRateLimitWindows1766600000000 implements MigrationInterface {
  name = 'CreateRateLimitWindows1766600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE acme.rate_limit_windows (
      key text NOT NULL,
      window_start timestamptz NOT NULL,
      count integer NOT NULL,
      PRIMARY KEY (key, window_start)
    )`);
    await queryRunner.query(
      'CREATE INDEX rate_limit_windows_by_start ON acme.rate_limit_windows (window_start)',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE acme.rate_limit_windows');
  }
}
