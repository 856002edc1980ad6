import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `audit_dead_letters`: audit entries the log could not store (say, text PostgreSQL refuses), set
 * aside with the reason so that they never block the entries after them; `audit verify` reports
 * them (docs/security.md#audit-log-that-never-stalls). `audit_events.occurrences`: how many calls an
 * aggregate entry stands for (failed authentications of one source address in one minute).
 */
export class CreateAuditDeadLetters1764634000000 implements MigrationInterface {
  name = 'CreateAuditDeadLetters1764634000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE gateway.audit_dead_letters (
      id bigserial PRIMARY KEY,
      recorded_at timestamptz NOT NULL DEFAULT now(),
      occurred_at timestamptz NOT NULL,
      request_id text NOT NULL,
      entry text NOT NULL,
      reason text NOT NULL
    )`);
    await queryRunner.query('ALTER TABLE gateway.audit_events ADD COLUMN occurrences integer');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE gateway.audit_events DROP COLUMN occurrences');
    await queryRunner.query('DROP TABLE gateway.audit_dead_letters');
  }
}
