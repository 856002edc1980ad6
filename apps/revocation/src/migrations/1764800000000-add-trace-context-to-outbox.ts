import { outboxTraceContextSql } from '@ca/messaging';
import { MigrationInterface, QueryRunner } from 'typeorm';

/** Events carry the trace of the request that recorded them (docs/operations.md, Traces). */
export class AddTraceContextToOutbox1764800000000 implements MigrationInterface {
  name = 'AddTraceContextToOutbox1764800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(outboxTraceContextSql('revocation'));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE revocation.outbox DROP COLUMN trace_context');
  }
}
