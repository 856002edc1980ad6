import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * docs/api.md#jobs: a revoke-matching job that cannot go on is `failed`, with the reason. Rounds
 * that failed in a row are counted here (not in memory), so a job that fails the process it runs
 * in, again and again, still ends.
 */
export class AddFailureToRevocationJobs1767960000001 implements MigrationInterface {
  name = 'AddFailureToRevocationJobs1767960000001';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE issuance.revocation_jobs
         ADD COLUMN failed_rounds integer NOT NULL DEFAULT 0,
         ADD COLUMN failure text`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'ALTER TABLE issuance.revocation_jobs DROP COLUMN failed_rounds, DROP COLUMN failure',
    );
  }
}
