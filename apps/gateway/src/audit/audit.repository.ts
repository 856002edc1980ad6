import { DataSource, EntityManager } from 'typeorm';
import {
  AuditChainState,
  AuditChainVerifier,
  AuditEntry,
  AuditEntryInput,
  AuditVerification,
  sealAuditEntries,
} from './audit-chain';
import { storableText } from '../text/text-rules';

/** docs/api.md#limits: retention depends on the tier, from 30 days to 1 year; 30 days unless set per tenant. */
export const DEFAULT_AUDIT_RETENTION_DAYS = 30;

export interface AuditExportFilter {
  tenantId?: string;
  since?: Date;
}

interface AuditRow {
  id: string;
  occurred_at: Date;
  tenant_id: string | null;
  principal: string | null;
  action: string;
  resource: string;
  result: number;
  code: string | null;
  request_id: string;
  prev_hash: string;
  hash: string;
  occurrences: number | null;
}

/** What `audit verify` says about entries that could not be stored. */
export interface DeadLetterSummary {
  count: number;
  oldest?: Date;
  newest?: Date;
}

const COLUMNS =
  'id, occurred_at, tenant_id, principal, action, resource, result, code, request_id, prev_hash, hash, occurrences';
const COLUMN_COUNT = 12;
const PAGE_SIZE = 1000;
const PRUNE_BATCH = 5000;

/**
 * The gateway.audit_events table and its head row (gateway.audit_chain). Appending locks the head
 * row, so entries from every replica form one linear chain; pruning removes the oldest entries
 * under the same lock and moves the anchor, so the remaining chain still verifies.
 */
export class AuditRepository {
  constructor(private readonly dataSource: DataSource) {}

  async append(inputs: AuditEntryInput[]): Promise<AuditEntry[]> {
    if (inputs.length === 0) return [];
    return this.dataSource.transaction(async (manager) => {
      const state = await this.lockedState(manager);
      const entries = sealAuditEntries({ id: state.headId, hash: state.headHash }, inputs);
      const values: unknown[] = [];
      const rows = entries.map((e) => {
        const at = values.length;
        values.push(
          e.id,
          e.occurredAt,
          e.tenantId,
          e.principal,
          e.action,
          e.resource,
          e.result,
          e.code,
          e.requestId,
          e.prevHash,
          e.hash,
          e.occurrences ?? null,
        );
        return `(${Array.from({ length: COLUMN_COUNT }, (_, i) => `$${at + i + 1}`).join(', ')})`;
      });
      await manager.query(`INSERT INTO gateway.audit_events (${COLUMNS}) VALUES ${rows.join(', ')}`, values);
      const last = entries[entries.length - 1];
      await manager.query('UPDATE gateway.audit_chain SET head_id = $1, head_hash = $2 WHERE id = 1', [
        last.id,
        last.hash,
      ]);
      return entries;
    });
  }

  /**
   * Sets aside an entry the log could not take, with the reason: outside the chain (it was never
   * part of it), as JSON text whose escapes keep any character PostgreSQL `text` refuses.
   */
  async deadLetter(entry: AuditEntryInput, reason: string): Promise<void> {
    await this.dataSource.query(
      'INSERT INTO gateway.audit_dead_letters (occurred_at, request_id, entry, reason) VALUES ($1, $2, $3, $4)',
      [entry.occurredAt, storableText(entry.requestId), JSON.stringify(entry), storableText(reason)],
    );
  }

  async deadLetterSummary(): Promise<DeadLetterSummary> {
    const [row] = await this.dataSource.query(
      'SELECT count(*) AS count, min(recorded_at) AS oldest, max(recorded_at) AS newest FROM gateway.audit_dead_letters',
    );
    const count = Number(row.count);
    return count === 0 ? { count } : { count, oldest: new Date(row.oldest), newest: new Date(row.newest) };
  }

  async chainState(manager: EntityManager = this.dataSource.manager): Promise<AuditChainState> {
    const [row] = await manager.query(
      'SELECT head_id, head_hash, anchor_id, anchor_hash FROM gateway.audit_chain WHERE id = 1',
    );
    return toState(row);
  }

  /** Entries in id order, a page at a time, optionally of one tenant and from a time on. */
  async *entries(filter: AuditExportFilter = {}, range: { toId?: number } = {}): AsyncGenerator<AuditEntry> {
    let afterId = 0;
    for (;;) {
      const conditions = ['id > $1'];
      const values: unknown[] = [afterId];
      if (range.toId !== undefined) conditions.push(`id <= $${values.push(range.toId)}`);
      if (filter.tenantId) conditions.push(`tenant_id = $${values.push(filter.tenantId)}`);
      if (filter.since) conditions.push(`occurred_at >= $${values.push(filter.since)}`);
      const rows: AuditRow[] = await this.dataSource.query(
        `SELECT ${COLUMNS} FROM gateway.audit_events WHERE ${conditions.join(' AND ')} ORDER BY id LIMIT ${PAGE_SIZE}`,
        values,
      );
      for (const row of rows) yield toEntry(row);
      if (rows.length < PAGE_SIZE) return;
      afterId = Number(rows[rows.length - 1].id);
    }
  }

  /**
   * Walks the chain from its anchor to the head read at the start, then checks that nothing was
   * written past that head outside the gateway. Reads page by page, not in one long transaction
   * (which would hold the embedded database); a pruning run in between moves the anchor, and the
   * walk is then started again.
   */
  async verify(): Promise<AuditVerification> {
    for (let attempt = 1; ; attempt++) {
      const state = await this.chainState();
      const verifier = new AuditChainVerifier(state);
      for await (const entry of this.entries({}, { toId: state.headId })) if (!verifier.add(entry)) break;
      const result = verifier.result();
      if (!result.ok) {
        const now = await this.chainState();
        if (now.anchorId !== state.anchorId && attempt < 3) continue;
        return result;
      }
      const [{ max_id }] = await this.dataSource.query('SELECT max(id) AS max_id FROM gateway.audit_events');
      const head = await this.chainState();
      if (max_id !== null && Number(max_id) > head.headId) {
        return {
          ok: false,
          entries: result.entries,
          entryId: head.headId + 1,
          problem: `entry ${head.headId + 1} is past the recorded head ${head.headId} (written outside the gateway)`,
        };
      }
      return result;
    }
  }

  /**
   * Deletes, from the oldest end, every entry older than its tenant's retention, up to the first
   * entry that must be kept (so a longer-lived entry holds back the ones after it), and moves the
   * anchor to the last deleted entry. Returns how many entries were deleted.
   */
  async prune(now: Date, defaultRetentionDays = DEFAULT_AUDIT_RETENTION_DAYS): Promise<number> {
    let deleted = 0;
    for (;;) {
      const batch = await this.dataSource.transaction(async (manager) => {
        const state = await this.lockedState(manager);
        const [kept] = await manager.query(
          `SELECT e.id FROM gateway.audit_events e
             LEFT JOIN gateway.tenants t ON t.tenant_id = e.tenant_id
            WHERE e.id > $1
              AND e.occurred_at >= $2::timestamptz - make_interval(days => COALESCE(t.audit_retention_days, $3::int))
            ORDER BY e.id LIMIT 1`,
          [state.anchorId, now, defaultRetentionDays],
        );
        const firstKept = kept ? Number(kept.id) : state.headId + 1;
        const lastPruned = Math.min(firstKept - 1, state.anchorId + PRUNE_BATCH);
        if (lastPruned <= state.anchorId) return 0;
        const [last] = await manager.query('SELECT hash FROM gateway.audit_events WHERE id = $1', [
          lastPruned,
        ]);
        // An entry already missing means the chain is broken: keep the evidence, prune nothing.
        if (!last) throw new Error(`audit entry ${lastPruned} is missing; run audit verify`);
        await manager.query(`SELECT set_config('ca.audit_prune', 'on', true)`);
        const result = await manager.query('DELETE FROM gateway.audit_events WHERE id > $1 AND id <= $2', [
          state.anchorId,
          lastPruned,
        ]);
        await manager.query(
          'UPDATE gateway.audit_chain SET anchor_id = $1, anchor_hash = $2, pruned_at = now() WHERE id = 1',
          [lastPruned, last.hash],
        );
        return affectedRows(result, lastPruned - state.anchorId);
      });
      deleted += batch;
      if (batch === 0) return deleted;
    }
  }

  private async lockedState(manager: EntityManager): Promise<AuditChainState> {
    const [row] = await manager.query(
      'SELECT head_id, head_hash, anchor_id, anchor_hash FROM gateway.audit_chain WHERE id = 1 FOR UPDATE',
    );
    return toState(row);
  }
}

function toState(row: { head_id: string; head_hash: string; anchor_id: string; anchor_hash: string }) {
  return {
    headId: Number(row.head_id),
    headHash: row.head_hash,
    anchorId: Number(row.anchor_id),
    anchorHash: row.anchor_hash,
  };
}

function toEntry(row: AuditRow): AuditEntry {
  return {
    id: Number(row.id),
    occurredAt: new Date(row.occurred_at),
    tenantId: row.tenant_id,
    principal: row.principal,
    action: row.action,
    resource: row.resource,
    result: Number(row.result),
    code: row.code,
    requestId: row.request_id,
    prevHash: row.prev_hash,
    hash: row.hash,
    ...(row.occurrences === null ? {} : { occurrences: Number(row.occurrences) }),
  };
}

/** TypeORM's postgres driver returns [rows, affected] for DELETE. */
function affectedRows(result: unknown, fallback: number): number {
  return Array.isArray(result) && typeof result[1] === 'number' ? result[1] : fallback;
}
