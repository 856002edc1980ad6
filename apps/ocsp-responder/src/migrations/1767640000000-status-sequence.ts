import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The status sequence issuance gave the change a row shows (docs/architecture.md#certificate-status-sequence):
 * a change is applied only with a higher one, so a late or replayed event is a no-op for good.
 * Null for rows stored before (their events had none); the first sequenced change applies.
 */
export class StatusSequence1767640000000 implements MigrationInterface {
  name = 'StatusSequence1767640000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE ocsp.certificate_status ADD COLUMN sequence integer');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE ocsp.certificate_status DROP COLUMN sequence');
  }
}
