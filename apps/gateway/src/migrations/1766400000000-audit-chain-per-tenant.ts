import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One audit hash chain per tenant, and one for entries without a tenant
 * (docs/architecture.md#audit-chain), instead of one head row every replica's writes queue on.
 *
 * Cut-over: the entries already written keep the legacy chain and its head row
 * (gateway.audit_chain), whose head stays where it is now; new entries take ids from a sequence
 * that starts after it and carry `chain_seq`, their position in their chain, whose head row is in
 * gateway.audit_chains. The same forward-only rules guard both kinds of head row.
 */
export class AuditChainPerTenant1766400000000 implements MigrationInterface {
  name = 'AuditChainPerTenant1766400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // No entry is appended to the legacy chain while it is cut over.
    await queryRunner.query('LOCK TABLE gateway.audit_chain IN EXCLUSIVE MODE');
    await queryRunner.query('ALTER TABLE gateway.audit_events ADD COLUMN chain_seq bigint');
    await queryRunner.query(
      `CREATE UNIQUE INDEX audit_events_by_chain ON gateway.audit_events ((COALESCE(tenant_id::text, '-')), chain_seq)
         WHERE chain_seq IS NOT NULL`,
    );
    await queryRunner.query(`CREATE TABLE gateway.audit_chains (
      chain_key text PRIMARY KEY,
      head_id bigint NOT NULL,
      head_hash text NOT NULL,
      anchor_id bigint NOT NULL,
      anchor_hash text NOT NULL,
      pruned_at timestamptz
    )`);
    await queryRunner.query(`CREATE TRIGGER audit_chains_forward_only
      BEFORE UPDATE OR DELETE ON gateway.audit_chains
      FOR EACH ROW EXECUTE FUNCTION gateway.audit_chain_forward_only()`);
    await queryRunner.query(`CREATE TRIGGER audit_chains_no_truncate
      BEFORE TRUNCATE ON gateway.audit_chains
      FOR EACH STATEMENT EXECUTE FUNCTION gateway.audit_chain_forward_only()`);
    await queryRunner.query('CREATE SEQUENCE gateway.audit_event_ids');
    await queryRunner.query(
      `SELECT setval('gateway.audit_event_ids',
         GREATEST(head_id, (SELECT COALESCE(max(id), 0) FROM gateway.audit_events)) + 1, false)
         FROM gateway.audit_chain WHERE id = 1`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP SEQUENCE gateway.audit_event_ids');
    await queryRunner.query('DROP TABLE gateway.audit_chains');
    await queryRunner.query('DROP INDEX gateway.audit_events_by_chain');
    await queryRunner.query('ALTER TABLE gateway.audit_events DROP COLUMN chain_seq');
  }
}
