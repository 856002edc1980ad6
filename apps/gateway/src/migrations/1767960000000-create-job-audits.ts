import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * docs/api.md#revoke-matching: each certificate a bulk revocation job revokes is audited like a
 * single revocation (JobAuditFollower). Per job, who started it and how far its revocations have
 * been audited: the position moves in the transaction that appends their entries, so each is
 * audited exactly once, also across a restart.
 */
export class CreateJobAudits1767960000000 implements MigrationInterface {
  name = 'CreateJobAudits1767960000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE gateway.job_audits (
      job_id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL,
      principal text NOT NULL,
      request_id text NOT NULL,
      position text,
      created_at timestamptz NOT NULL DEFAULT now(),
      finished_at timestamptz
    )`);
    await queryRunner.query(
      'CREATE INDEX job_audits_unfinished ON gateway.job_audits (created_at) WHERE finished_at IS NULL',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE gateway.job_audits');
  }
}
