import { outboxClaimSql, outboxRetentionIndexSql } from '@ca/messaging';
import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Replicas: relays claim the head of the outbox before publishing it. Retention: rows are found
 * by age through an index (docs/operations.md, Running replicas and Retention).
 */
export class AddClaimsAndRetentionToOutbox1766300000000 implements MigrationInterface {
  name = 'AddClaimsAndRetentionToOutbox1766300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(outboxClaimSql('issuance'));
    await queryRunner.query(outboxRetentionIndexSql('issuance'));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX IF EXISTS issuance.outbox_published_at');
    await queryRunner.query('ALTER TABLE issuance.outbox DROP COLUMN claimed_by, DROP COLUMN claimed_until');
  }
}
