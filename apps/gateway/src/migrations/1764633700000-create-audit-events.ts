import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The audit log (docs/api.md#audit-log): append-only and hash-chained. `audit_chain` is its one-row head: the
 * last entry written (id and hash) and the anchor the first remaining entry links to after
 * pruning. Writers lock that row, which makes the chain linear across gateway replicas.
 */
export class CreateAuditEvents1764633700000 implements MigrationInterface {
  name = 'CreateAuditEvents1764633700000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE gateway.audit_events (
      id bigint PRIMARY KEY,
      occurred_at timestamptz NOT NULL,
      tenant_id uuid,
      principal text,
      action text NOT NULL,
      resource text NOT NULL,
      result smallint NOT NULL,
      code text,
      request_id text NOT NULL,
      prev_hash text NOT NULL,
      hash text NOT NULL
    )`);
    await queryRunner.query(`CREATE INDEX audit_events_by_tenant ON gateway.audit_events (tenant_id, id)`);
    await queryRunner.query(`CREATE INDEX audit_events_by_time ON gateway.audit_events (occurred_at)`);
    await queryRunner.query(`CREATE TABLE gateway.audit_chain (
      id smallint PRIMARY KEY CHECK (id = 1),
      head_id bigint NOT NULL,
      head_hash text NOT NULL,
      anchor_id bigint NOT NULL,
      anchor_hash text NOT NULL,
      pruned_at timestamptz
    )`);
    await queryRunner.query(
      `INSERT INTO gateway.audit_chain (id, head_id, head_hash, anchor_id, anchor_hash) VALUES (1, 0, repeat('0', 64), 0, repeat('0', 64))`,
    );
    // Entries are never changed; they are deleted only by the pruning job, which sets
    // ca.audit_prune for its own transaction (SET LOCAL).
    await queryRunner.query(`CREATE FUNCTION gateway.audit_events_append_only() RETURNS trigger
      LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'DELETE' AND current_setting('ca.audit_prune', true) = 'on' THEN
          RETURN OLD;
        END IF;
        RAISE EXCEPTION 'gateway.audit_events is append-only: % refused', TG_OP
          USING ERRCODE = 'insufficient_privilege';
      END
      $$`);
    await queryRunner.query(`CREATE TRIGGER audit_events_append_only
      BEFORE UPDATE OR DELETE ON gateway.audit_events
      FOR EACH ROW EXECUTE FUNCTION gateway.audit_events_append_only()`);
    await queryRunner.query(`CREATE TRIGGER audit_events_no_truncate
      BEFORE TRUNCATE ON gateway.audit_events
      FOR EACH STATEMENT EXECUTE FUNCTION gateway.audit_events_append_only()`);
    // The head only moves forward; the anchor moves forward only while pruning.
    await queryRunner.query(`CREATE FUNCTION gateway.audit_chain_forward_only() RETURNS trigger
      LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP <> 'UPDATE' THEN
          RAISE EXCEPTION 'gateway.audit_chain: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
        END IF;
        IF NEW.head_id < OLD.head_id OR (NEW.head_id = OLD.head_id AND NEW.head_hash <> OLD.head_hash) THEN
          RAISE EXCEPTION 'gateway.audit_chain: the head only moves forward' USING ERRCODE = 'insufficient_privilege';
        END IF;
        IF (NEW.anchor_id, NEW.anchor_hash) IS DISTINCT FROM (OLD.anchor_id, OLD.anchor_hash)
           AND (current_setting('ca.audit_prune', true) IS DISTINCT FROM 'on' OR NEW.anchor_id < OLD.anchor_id) THEN
          RAISE EXCEPTION 'gateway.audit_chain: the anchor moves only forward, by pruning' USING ERRCODE = 'insufficient_privilege';
        END IF;
        RETURN NEW;
      END
      $$`);
    await queryRunner.query(`CREATE TRIGGER audit_chain_forward_only
      BEFORE UPDATE OR DELETE ON gateway.audit_chain
      FOR EACH ROW EXECUTE FUNCTION gateway.audit_chain_forward_only()`);
    await queryRunner.query(`CREATE TRIGGER audit_chain_no_truncate
      BEFORE TRUNCATE ON gateway.audit_chain
      FOR EACH STATEMENT EXECUTE FUNCTION gateway.audit_chain_forward_only()`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE gateway.audit_chain');
    await queryRunner.query('DROP TABLE gateway.audit_events');
    await queryRunner.query('DROP FUNCTION gateway.audit_chain_forward_only()');
    await queryRunner.query('DROP FUNCTION gateway.audit_events_append_only()');
  }
}
