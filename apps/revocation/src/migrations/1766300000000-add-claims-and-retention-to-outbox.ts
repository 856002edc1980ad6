import { inboxRetentionIndexSql, outboxClaimSql, outboxRetentionIndexSql } from '@ca/messaging';
import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Replicas: relays claim the head of the outbox before publishing it. Retention: rows are found
 * by age through an index (docs/operations.md, Running replicas and Retention).
 */
export class AddClaimsAndRetentionToOutbox1766300000000 implements MigrationInterface {
  name = 'AddClaimsAndRetentionToOutbox1766300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(outboxClaimSql('revocation'));
    await queryRunner.query(outboxRetentionIndexSql('revocation'));
    await queryRunner.query(inboxRetentionIndexSql('revocation'));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX IF EXISTS revocation.inbox_applied_at');
    await queryRunner.query('DROP INDEX IF EXISTS revocation.outbox_published_at');
    await queryRunner.query(
      'ALTER TABLE revocation.outbox DROP COLUMN claimed_by, DROP COLUMN claimed_until',
    );
  }
}
