import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * docs/api.md#jobs: a revoke-matching job that cannot go on is `failed`, with the reason; and
 * each item records the transaction that revoked it, for the gateway's audit of each revocation. Rounds
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
    // The transaction that revoked an item: the gateway reads revoked items in this order, only
    // below the oldest transaction still running, so none becomes visible behind its position.
    await queryRunner.query('ALTER TABLE issuance.revocation_job_items ADD COLUMN revoked_in xid8');
    await queryRunner.query(
      `CREATE INDEX revocation_job_items_revoked ON issuance.revocation_job_items (job_id, revoked_in, certificate_id)
        WHERE revoked_in IS NOT NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE issuance.revocation_job_items DROP COLUMN revoked_in');
    await queryRunner.query(
      'ALTER TABLE issuance.revocation_jobs DROP COLUMN failed_rounds, DROP COLUMN failure',
    );
  }
}
