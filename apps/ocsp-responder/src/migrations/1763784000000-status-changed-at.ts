import { MigrationInterface, QueryRunner } from 'typeorm';

export class StatusChangedAt1763784000000 implements MigrationInterface {
  name = 'StatusChangedAt1763784000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // When a row last changed status (a revocation), by the database clock: every replica polls
    // the recent ones to drop its in-memory copy of them (certificate-status.projection.ts).
    await queryRunner.query('ALTER TABLE ocsp.certificate_status ADD COLUMN status_changed_at timestamptz');
    await queryRunner.query(
      `CREATE INDEX certificate_status_changed_at ON ocsp.certificate_status (status_changed_at)
         WHERE status_changed_at IS NOT NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX ocsp.certificate_status_changed_at');
    await queryRunner.query('ALTER TABLE ocsp.certificate_status DROP COLUMN status_changed_at');
  }
}
