import { outboxTableSql, outboxTraceContextSql } from '@ca/messaging';
import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The gateway's transactional outbox: `tenant.updated` commits with the tenant row it describes,
 * so issuance's projection of tenant status and plan limit never misses a change. `announced`
 * marks tenants whose state went out as an event; those created before this migration are
 * announced once when a gateway starts (TenantAnnouncer).
 */
export class CreateGatewayOutbox1766200000000 implements MigrationInterface {
  name = 'CreateGatewayOutbox1766200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const sql of outboxTableSql('gateway')) await queryRunner.query(sql);
    await queryRunner.query(outboxTraceContextSql('gateway'));
    await queryRunner.query(
      'ALTER TABLE gateway.tenants ADD COLUMN announced boolean NOT NULL DEFAULT false',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE gateway.tenants DROP COLUMN announced');
    await queryRunner.query('DROP TABLE gateway.outbox');
  }
}
