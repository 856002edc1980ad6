import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * docs/api.md#revoke-matching jobs: the job, and the certificates it revokes, chosen once when it
 * starts (the count the caller confirmed). Each item turns `revoked` (or `skipped`) in the
 * transaction of its revocation, so a job resumed after a crash revokes nothing twice and skips
 * nothing. `lease_until` lets one issuance replica at a time work on a job.
 */
export class CreateRevocationJobs1767800000002 implements MigrationInterface {
  name = 'CreateRevocationJobs1767800000002';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE issuance.revocation_jobs (
         id uuid PRIMARY KEY,
         tenant_id uuid NOT NULL,
         principal text NOT NULL,
         request_id text,
         reason text NOT NULL,
         reason_code text NOT NULL,
         status text NOT NULL CHECK (status IN ('running', 'done', 'failed')),
         total integer NOT NULL,
         done integer NOT NULL DEFAULT 0,
         failed integer NOT NULL DEFAULT 0,
         created_at timestamptz NOT NULL DEFAULT now(),
         finished_at timestamptz,
         lease_owner text,
         lease_until timestamptz)`,
    );
    await queryRunner.query(
      `CREATE INDEX revocation_jobs_running ON issuance.revocation_jobs (created_at) WHERE status = 'running'`,
    );
    await queryRunner.query(
      `CREATE TABLE issuance.revocation_job_items (
         job_id uuid NOT NULL REFERENCES issuance.revocation_jobs (id) ON DELETE CASCADE,
         certificate_id uuid NOT NULL,
         state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'revoked', 'skipped')),
         PRIMARY KEY (job_id, certificate_id))`,
    );
    await queryRunner.query(
      `CREATE INDEX revocation_job_items_pending ON issuance.revocation_job_items (job_id, certificate_id)
        WHERE state = 'pending'`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE issuance.revocation_job_items');
    await queryRunner.query('DROP TABLE issuance.revocation_jobs');
  }
}
