import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each certificate's status sequence: 1 when issued, one more at every later change (revoked, hold
 * released), carried by its events and its direct publication, so the responder applies a change
 * only if it is newer than what it holds (docs/architecture.md#certificate-status-sequence).
 * Certificates revoked before this column are at 2.
 */
export class AddStatusSequenceToCertificates1767840000000 implements MigrationInterface {
  name = 'AddStatusSequenceToCertificates1767840000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'ALTER TABLE issuance.certificates ADD COLUMN status_sequence integer NOT NULL DEFAULT 1',
    );
    await queryRunner.query(
      'UPDATE issuance.certificates SET status_sequence = 2 WHERE revoked_at IS NOT NULL',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE issuance.certificates DROP COLUMN status_sequence');
  }
}
