import { DataSource, EntityManager } from 'typeorm';
import { prepared } from '@ca/persistence';
import {
  AuditChainState,
  AuditChainVerifier,
  AuditEntry,
  AuditEntryInput,
  AuditVerification,
  GENESIS_HASH,
  sealChainEntries,
} from './audit-chain';
import { storableText } from '../text/text-rules';
import { AuditAppendCache, ChainHead } from './audit-append-cache';

/** docs/api.md#limits: retention depends on the tier, from 30 days to 1 year; 30 days unless set per tenant. */
export const DEFAULT_AUDIT_RETENTION_DAYS = 30;

/** What GET /v2/audit narrows a tenant's log to. */
export interface AuditPageFilter {
  beforeId?: number;
  actionPrefix?: string;
  principal?: string;
  since?: Date;
  until?: Date;
}

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
  chain_seq: string | null;
}

/** A per-tenant chain's head row: positions (`chain_seq`) and hashes. */
interface ChainRow {
  chain_key: string;
  head_id: string;
  head_hash: string;
  anchor_id: string;
  anchor_hash: string;
}

/** A head row locked for an append, with the entry ids taken under the lock (every row has them all). */
interface LockedChainRow extends ChainRow {
  /** NULL when none were asked for. */
  ids: string[] | null;
}

/** What `audit verify` says about entries that could not be stored. */
export interface DeadLetterSummary {
  count: number;
  oldest?: Date;
  newest?: Date;
}

const COLUMNS =
  'id, occurred_at, tenant_id, principal, action, resource, result, code, request_id, prev_hash, hash, occurrences, chain_seq';
/**
 * A batch of entries and their chains' new heads: one text for any number of them (arrays, not a
 * VALUES row each), so it is prepared once (prepared-statements.ts), like the chains' lock.
 */
const INSERT_ENTRIES_AND_HEADS = prepared(
  `WITH heads AS (
     UPDATE gateway.audit_chains c SET head_id = h.id, head_hash = h.hash
       FROM unnest($14::text[], $15::bigint[], $16::text[]) AS h(key, id, hash)
      WHERE c.chain_key = h.key)
   INSERT INTO gateway.audit_events (${COLUMNS})
   SELECT * FROM unnest($1::bigint[], $2::timestamptz[], $3::uuid[], $4::text[], $5::text[], $6::text[],
                        $7::smallint[], $8::text[], $9::text[], $10::text[], $11::text[], $12::int[], $13::bigint[])`,
);
/**
 * An append without the chains' locks: each chain's head moves only if it is still the one this
 * store remembers (`$17`, `$18`), and a chain's entries go in only if its head moved, in one
 * statement (atomic on its own). Answers the chains written; the others are appended again under
 * their locks.
 */
const APPEND_IF_HEADS_UNCHANGED = prepared(
  `WITH heads AS (
     UPDATE gateway.audit_chains c SET head_id = h.id, head_hash = h.hash
       FROM unnest($14::text[], $15::bigint[], $16::text[], $17::bigint[], $18::text[])
            AS h(key, id, hash, was_id, was_hash)
      WHERE c.chain_key = h.key AND c.head_id = h.was_id AND c.head_hash = h.was_hash
      RETURNING c.chain_key),
   entries AS (
     INSERT INTO gateway.audit_events (${COLUMNS})
     SELECT id, occurred_at, tenant_id, principal, action, resource, result, code, request_id, prev_hash,
            hash, occurrences, chain_seq
       FROM unnest($1::bigint[], $2::timestamptz[], $3::uuid[], $4::text[], $5::text[], $6::text[],
                   $7::smallint[], $8::text[], $9::text[], $10::text[], $11::text[], $12::int[], $13::bigint[],
                   $19::text[])
            AS e(id, occurred_at, tenant_id, principal, action, resource, result, code, request_id, prev_hash,
                 hash, occurrences, chain_seq, key)
      WHERE e.key IN (SELECT chain_key FROM heads))
   SELECT chain_key FROM heads`,
);
/** Entry ids taken ahead of time (AuditAppendCache), a block at a time. */
const TAKE_IDS = prepared(`SELECT nextval('gateway.audit_event_ids') AS id FROM generate_series(1, $1::int)`);
const ID_BLOCK = 64;
/**
 * The chains' head rows locked (sorted by key: two writers cannot deadlock) and, in the same
 * statement, the ids of the entries to append. The ids are taken only after every lock is held (the
 * count reads all the locked rows first), so within a chain ids grow with positions.
 */
const LOCK_CHAINS_AND_TAKE_IDS = prepared(
  `WITH locked AS (
     SELECT chain_key, head_id, head_hash, anchor_id, anchor_hash FROM gateway.audit_chains
      WHERE chain_key = ANY($1::text[]) ORDER BY chain_key FOR UPDATE),
   taken AS (
     SELECT array_agg(nextval('gateway.audit_event_ids')) AS ids
       FROM generate_series(1, $2::int) WHERE (SELECT count(*) FROM locked) > 0)
   SELECT locked.*, taken.ids FROM locked, taken ORDER BY chain_key`,
);
/** The chain key of entries without a tenant (failed authentications and the like). */
const NO_TENANT_CHAIN = '-';
/** The chain an entry belongs to, as SQL over gateway.audit_events (matches its index). */
const CHAIN_KEY_SQL = `COALESCE(tenant_id::text, '${NO_TENANT_CHAIN}')`;

function chainKeyOf(tenantId: string | null): string {
  return tenantId === null ? NO_TENANT_CHAIN : tenantId.toLowerCase();
}

function chainLabel(key: string): string {
  return key === NO_TENANT_CHAIN ? 'chain of entries without a tenant' : `chain of tenant ${key}`;
}
const PAGE_SIZE = 1000;
const PRUNE_BATCH = 5000;

/**
 * The gateway.audit_events table and its chains (docs/architecture.md#audit-chain). Each tenant's
 * entries form a chain of their own, and so do the entries without a tenant: its head row in
 * gateway.audit_chains is locked to append (or moved by one guarded statement when this store wrote
 * the chain's last entry), so replicas writing for different tenants do not wait for each other,
 * and each chain stays linear. Entries written before the split keep the legacy
 * chain (gateway.audit_chain), whose head is frozen at the cut-over. Pruning removes the oldest
 * entries of a chain under its lock and moves its anchor, so what remains still verifies.
 */
export class AuditStore {
  /** Chain keys whose head row exists (bounded by the number of tenants). */
  private readonly seenChains = new Set<string>();
  private readonly cache = new AuditAppendCache();

  constructor(private readonly dataSource: DataSource) {}

  /**
   * Appends in one statement when this store knows every chain's head (it wrote the last entry of
   * each): the common case of one gateway, where a locked append is a transaction of four round
   * trips. A chain whose head moved meanwhile (another gateway) is appended under its lock.
   */
  async append(inputs: AuditEntryInput[]): Promise<AuditEntry[]> {
    if (inputs.length === 0) return [];
    try {
      const written = await this.appendUnlocked(inputs);
      const rest = inputs.flatMap((_, i) => (written[i] ? [] : [i]));
      if (rest.length > 0) {
        const entries = await this.dataSource.transaction((manager) =>
          this.appendLocked(
            manager,
            rest.map((i) => inputs[i]),
          ),
        );
        entries.forEach((entry, n) => (written[rest[n]] = entry));
        this.rememberHeads(entries); // committed
      }
      return written as AuditEntry[];
    } catch (error) {
      this.cache.clear();
      throw error;
    }
  }

  /** append, in the caller's transaction (with more that must commit with the entries). */
  async appendIn(manager: EntityManager, inputs: AuditEntryInput[]): Promise<AuditEntry[]> {
    if (inputs.length === 0) return [];
    try {
      return await this.appendLocked(manager, inputs);
    } finally {
      // Whether the caller's transaction commits is not known here.
      this.cache.forget(inputs.map((input) => chainKeyOf(input.tenantId)));
    }
  }

  /** The entries appended without locks, by position; none when a chain's head is not known. */
  private async appendUnlocked(inputs: AuditEntryInput[]): Promise<(AuditEntry | undefined)[]> {
    const written = new Array<AuditEntry | undefined>(inputs.length);
    const heads = new Map(
      inputs.map((input) => chainKeyOf(input.tenantId)).map((key) => [key, this.cache.headOf(key)]),
    );
    if ([...heads.values()].some((head) => head === undefined)) return written;
    const ids = await this.takeIds(inputs.length);
    if (!ids) return written;
    const { entries, newHeads } = sealByChain(inputs, ids, (key) => heads.get(key)!);
    const moved: { chain_key: string }[] = await this.dataSource.query(APPEND_IF_HEADS_UNCHANGED, [
      ...entryColumns(entries),
      ...headColumns(newHeads),
      newHeads.map((head) => head.was.id),
      newHeads.map((head) => head.was.hash),
      entries.map((entry) => chainKeyOf(entry.tenantId)),
    ]);
    const movedKeys = new Set(moved.map((row) => row.chain_key));
    for (const head of newHeads) {
      if (movedKeys.has(head.key)) this.cache.remember(head.key, head);
      else this.cache.forget([head.key]);
    }
    entries.forEach((entry, i) => {
      if (movedKeys.has(chainKeyOf(entry.tenantId))) written[i] = entry;
    });
    return written;
  }

  /** `count` ids from the block, taking a new block from the sequence when it runs short. */
  private async takeIds(count: number): Promise<number[] | undefined> {
    const ids = this.cache.take(count);
    if (ids) return ids;
    const generation = this.cache.refillStarts();
    const rows: { id: string }[] = await this.dataSource.query(TAKE_IDS, [Math.max(count, ID_BLOCK)]);
    this.cache.refilled(
      generation,
      rows.map((row) => Number(row.id)).sort((a, b) => a - b),
    );
    return this.cache.take(count);
  }

  private rememberHeads(entries: AuditEntry[]): void {
    for (const entry of entries)
      this.cache.remember(chainKeyOf(entry.tenantId), { id: entry.chainSeq!, hash: entry.hash });
  }

  /** Appends under the chains' locks: the head rows locked, ids taken, entries and heads written. */
  private async appendLocked(manager: EntityManager, inputs: AuditEntryInput[]): Promise<AuditEntry[]> {
    const keys = [...new Set(inputs.map((input) => chainKeyOf(input.tenantId)))].sort();
    const { heads, ids } = await this.lockedChains(manager, keys, inputs.length);
    this.cache.lockedIdsTaken();
    const { entries, newHeads } = sealByChain(inputs, ids, (key) => {
      const head = heads.get(key)!;
      return { id: head.headId, hash: head.headHash };
    });
    // The entries and the chains' new heads in one statement (one turn of the embedded database).
    await manager.query(INSERT_ENTRIES_AND_HEADS, [...entryColumns(entries), ...headColumns(newHeads)]);
    return entries;
  }

  /**
   * The head rows of `keys`, made at first use, locked, and `count` entry ids taken under the
   * locks (ascending).
   */
  private async lockedChains(
    manager: EntityManager,
    keys: string[],
    count: number,
  ): Promise<{ heads: Map<string, AuditChainState>; ids: number[] }> {
    // A chain row is never deleted (a trigger refuses it), so a key whose row was there before
    // this transaction needs no insert again: one statement less per append.
    const unseen = keys.filter((key) => !this.seenChains.has(key));
    const made = unseen.length > 0 ? await this.insertChains(manager, unseen) : new Set<string>();
    let rows = await this.lockChains(manager, keys, count);
    // Only if a remembered row has gone since (a database restored from an older backup): made
    // again, and locked after the others' (out of order, in this rare case only). The ids the first
    // lock took are left unused: a sequence has gaps anyway (a rolled-back append leaves them too).
    if (rows.length < keys.length) {
      await this.insertChains(manager, keys);
      rows = await this.lockChains(manager, keys, count);
    }
    // A row this transaction made is not remembered: until it commits, another append of this
    // gateway that skipped its insert would not see it, lock the other chains, then wait for it
    // and lock it out of order, which deadlocked two gateways on Postgres. Its next use remembers it.
    for (const row of rows) if (!made.has(row.chain_key)) this.seenChains.add(row.chain_key);
    const ids = (rows[0]?.ids ?? []).map(Number).sort((a, b) => a - b);
    return { heads: new Map(rows.map((row) => [row.chain_key, toState(row)])), ids };
  }

  /**
   * Every key inserted before any is locked (no lock on a row that exists): locking the existing
   * rows before inserting the missing ones deadlocked two writers on Postgres (each held a row the
   * other's second lock wanted). Answers the keys this transaction made.
   */
  private async insertChains(manager: EntityManager, keys: string[]): Promise<Set<string>> {
    const made: { chain_key: string }[] = await manager.query(
      `INSERT INTO gateway.audit_chains (chain_key, head_id, head_hash, anchor_id, anchor_hash)
       SELECT k, 0, $2, 0, $2 FROM unnest($1::text[]) AS k ON CONFLICT (chain_key) DO NOTHING
       RETURNING chain_key`,
      [keys, GENESIS_HASH],
    );
    return new Set(made.map((row) => row.chain_key));
  }

  private lockChains(manager: EntityManager, keys: string[], count: number): Promise<LockedChainRow[]> {
    return manager.query(LOCK_CHAINS_AND_TAKE_IDS, [keys, count]);
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

  /** The legacy chain's state (entries written before the per-tenant chains). */
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
   * One tenant's entries, newest first (docs/api.md#audit-log, GET /v2/audit): those older than
   * `beforeId` when given, filtered by action prefix, principal and time. Keyset pages on
   * (tenant_id, id), so page 1,000 costs what page 1 costs.
   */
  async tenantPage(tenantId: string, filter: AuditPageFilter, limit: number): Promise<AuditEntry[]> {
    const values: unknown[] = [tenantId];
    const conditions = ['tenant_id = $1'];
    if (filter.beforeId !== undefined) conditions.push(`id < $${values.push(filter.beforeId)}`);
    if (filter.actionPrefix)
      conditions.push(`action LIKE $${values.push(filter.actionPrefix.replace(/[\\%_]/g, '\\$&') + '%')}`);
    if (filter.principal !== undefined) conditions.push(`principal = $${values.push(filter.principal)}`);
    if (filter.since) conditions.push(`occurred_at >= $${values.push(filter.since)}`);
    if (filter.until) conditions.push(`occurred_at < $${values.push(filter.until)}`);
    const rows: AuditRow[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM gateway.audit_events WHERE ${conditions.join(' AND ')}
        ORDER BY id DESC LIMIT ${Math.floor(limit)}`,
      values,
    );
    return rows.map(toEntry);
  }

  /**
   * Verifies the whole log: the legacy chain, then every per-tenant chain (and the chain of
   * entries without a tenant), each from its anchor to the head read at its start; then that no
   * entry was written past a head, nor into a chain without a head row, outside the gateway.
   * Reads page by page, not in one long transaction (which would hold the embedded database); a
   * pruning run in between moves an anchor, and the walk is then started again.
   */
  async verify(): Promise<AuditVerification> {
    for (let attempt = 1; ; attempt++) {
      const anchorsBefore = await this.anchors();
      const result = await this.verifyOnce();
      if (!result.ok && attempt < 3 && (await this.anchors()) !== anchorsBefore) continue;
      return result;
    }
  }

  private async verifyOnce(): Promise<AuditVerification> {
    const legacy = await this.chainState();
    const verifier = new AuditChainVerifier(legacy);
    for await (const entry of this.legacyEntries(legacy.headId)) if (!verifier.add(entry)) break;
    let total = verifier.result();
    if (!total.ok) return total;
    const [{ max_id }] = await this.dataSource.query(
      'SELECT max(id) AS max_id FROM gateway.audit_events WHERE chain_seq IS NULL',
    );
    if (max_id !== null && Number(max_id) > legacy.headId) {
      return {
        ok: false,
        entries: total.entries,
        entryId: legacy.headId + 1,
        problem: `entry ${legacy.headId + 1} is past the recorded head ${legacy.headId} (written outside the gateway)`,
      };
    }
    const chains: ChainRow[] = await this.dataSource.query(
      'SELECT chain_key, head_id, head_hash, anchor_id, anchor_hash FROM gateway.audit_chains ORDER BY chain_key',
    );
    const heads = new Map<string, number>();
    for (const row of chains) {
      const state = toState(row);
      heads.set(row.chain_key, state.headId);
      const chain = new AuditChainVerifier(state, chainLabel(row.chain_key));
      for await (const entry of this.chainEntries(row.chain_key, state)) if (!chain.add(entry)) break;
      const result = chain.result();
      if (!result.ok) return { ...result, entries: total.entries + result.entries };
      total = mergeVerified(total, result);
    }
    // Positions past a head (or in a chain with no head row) were written outside the gateway.
    const written: { chain_key: string; max_seq: string; id: string }[] = await this.dataSource.query(
      `SELECT DISTINCT ON (${CHAIN_KEY_SQL}) ${CHAIN_KEY_SQL} AS chain_key, chain_seq AS max_seq, id
         FROM gateway.audit_events WHERE chain_seq IS NOT NULL
        ORDER BY ${CHAIN_KEY_SQL}, chain_seq DESC`,
    );
    for (const row of written) {
      const head = heads.get(row.chain_key) ?? (await this.headOf(row.chain_key));
      if (Number(row.max_seq) > head) {
        return {
          ok: false,
          entries: total.entries,
          entryId: Number(row.id),
          problem: `${chainLabel(row.chain_key)}: entry ${Number(row.max_seq)} is past the recorded head ${head} (written outside the gateway)`,
        };
      }
    }
    return total;
  }

  /** A chain's head as stored now (one that appeared after the walk began), or 0. */
  private async headOf(key: string): Promise<number> {
    const [row] = await this.dataSource.query(
      'SELECT head_id FROM gateway.audit_chains WHERE chain_key = $1',
      [key],
    );
    return row ? Number(row.head_id) : 0;
  }

  /** Every chain's anchor, as one string: changed when a pruning run moved one. */
  private async anchors(): Promise<string> {
    const rows: { anchor_id: string }[] = await this.dataSource.query(
      `SELECT anchor_id FROM gateway.audit_chain
        UNION ALL SELECT anchor_id FROM (SELECT anchor_id FROM gateway.audit_chains ORDER BY chain_key) c`,
    );
    return rows.map((row) => row.anchor_id).join(',');
  }

  /** The legacy chain's entries in id order, a page at a time, up to its head. */
  private async *legacyEntries(headId: number): AsyncGenerator<AuditEntry> {
    let afterId = 0;
    for (;;) {
      const rows: AuditRow[] = await this.dataSource.query(
        `SELECT ${COLUMNS} FROM gateway.audit_events WHERE id > $1 AND id <= $2 AND chain_seq IS NULL
          ORDER BY id LIMIT ${PAGE_SIZE}`,
        [afterId, headId],
      );
      for (const row of rows) yield toEntry(row);
      if (rows.length < PAGE_SIZE) return;
      afterId = Number(rows[rows.length - 1].id);
    }
  }

  /** One per-tenant chain's entries from its anchor to its head, in position order, a page at a time. */
  private async *chainEntries(key: string, state: AuditChainState): AsyncGenerator<AuditEntry> {
    let after = state.anchorId;
    for (;;) {
      const rows: AuditRow[] = await this.dataSource.query(
        `SELECT ${COLUMNS} FROM gateway.audit_events
          WHERE ${CHAIN_KEY_SQL} = $1 AND chain_seq > $2 AND chain_seq <= $3
          ORDER BY chain_seq LIMIT ${PAGE_SIZE}`,
        [key, after, state.headId],
      );
      for (const row of rows) yield toEntry(row);
      if (rows.length < PAGE_SIZE) return;
      after = Number(rows[rows.length - 1].chain_seq);
    }
  }

  /**
   * Deletes, from the oldest end of each chain, every entry older than its tenant's retention, up
   * to the chain's first entry that must be kept, and moves that chain's anchor to the last deleted
   * entry. In the legacy chain, which mixes tenants, a longer-lived entry holds back the ones after
   * it. Returns how many entries were deleted.
   */
  async prune(now: Date, defaultRetentionDays = DEFAULT_AUDIT_RETENTION_DAYS): Promise<number> {
    let deleted = await this.pruneLegacy(now, defaultRetentionDays);
    const chains: { chain_key: string }[] = await this.dataSource.query(
      'SELECT chain_key FROM gateway.audit_chains ORDER BY chain_key',
    );
    for (const { chain_key } of chains)
      deleted += await this.pruneChain(chain_key, now, defaultRetentionDays);
    return deleted;
  }

  private async pruneChain(key: string, now: Date, defaultRetentionDays: number): Promise<number> {
    let deleted = 0;
    for (;;) {
      const batch = await this.dataSource.transaction(async (manager) => {
        const state = (await this.lockedChains(manager, [key], 0)).heads.get(key)!;
        const [retention] = await manager.query(
          'SELECT audit_retention_days FROM gateway.tenants WHERE tenant_id::text = $1',
          [key],
        );
        const days = retention?.audit_retention_days ?? defaultRetentionDays;
        const [kept] = await manager.query(
          `SELECT chain_seq FROM gateway.audit_events
            WHERE ${CHAIN_KEY_SQL} = $1 AND chain_seq > $2
              AND occurred_at >= $3::timestamptz - make_interval(days => $4::int)
            ORDER BY chain_seq LIMIT 1`,
          [key, state.anchorId, now, days],
        );
        const firstKept = kept ? Number(kept.chain_seq) : state.headId + 1;
        const lastPruned = Math.min(firstKept - 1, state.anchorId + PRUNE_BATCH);
        if (lastPruned <= state.anchorId) return 0;
        const [last] = await manager.query(
          `SELECT hash FROM gateway.audit_events WHERE ${CHAIN_KEY_SQL} = $1 AND chain_seq = $2`,
          [key, lastPruned],
        );
        if (!last)
          throw new Error(`audit entry ${lastPruned} of ${chainLabel(key)} is missing; run audit verify`);
        await manager.query(`SELECT set_config('ca.audit_prune', 'on', true)`);
        const result = await manager.query(
          `DELETE FROM gateway.audit_events WHERE ${CHAIN_KEY_SQL} = $1 AND chain_seq > $2 AND chain_seq <= $3`,
          [key, state.anchorId, lastPruned],
        );
        await manager.query(
          'UPDATE gateway.audit_chains SET anchor_id = $2, anchor_hash = $3, pruned_at = now() WHERE chain_key = $1',
          [key, lastPruned, last.hash],
        );
        return affectedRows(result, lastPruned - state.anchorId);
      });
      deleted += batch;
      if (batch === 0) return deleted;
    }
  }

  /** pruning of the legacy chain (entries written before the per-tenant chains), in id order. */
  private async pruneLegacy(now: Date, defaultRetentionDays: number): Promise<number> {
    let deleted = 0;
    for (;;) {
      const batch = await this.dataSource.transaction(async (manager) => {
        const state = await this.lockedState(manager);
        const [kept] = await manager.query(
          `SELECT e.id FROM gateway.audit_events e
             LEFT JOIN gateway.tenants t ON t.tenant_id = e.tenant_id
            WHERE e.id > $1 AND e.id <= $4 AND e.chain_seq IS NULL
              AND e.occurred_at >= $2::timestamptz - make_interval(days => COALESCE(t.audit_retention_days, $3::int))
            ORDER BY e.id LIMIT 1`,
          [state.anchorId, now, defaultRetentionDays, state.headId],
        );
        const firstKept = kept ? Number(kept.id) : state.headId + 1;
        const lastPruned = Math.min(firstKept - 1, state.anchorId + PRUNE_BATCH);
        if (lastPruned <= state.anchorId) return 0;
        const [last] = await manager.query(
          'SELECT hash FROM gateway.audit_events WHERE id = $1 AND chain_seq IS NULL',
          [lastPruned],
        );
        // An entry already missing means the chain is broken: keep the evidence, prune nothing.
        if (!last) throw new Error(`audit entry ${lastPruned} is missing; run audit verify`);
        await manager.query(`SELECT set_config('ca.audit_prune', 'on', true)`);
        const result = await manager.query(
          'DELETE FROM gateway.audit_events WHERE id > $1 AND id <= $2 AND chain_seq IS NULL',
          [state.anchorId, lastPruned],
        );
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

function toState(row: {
  head_id: string;
  head_hash: string;
  anchor_id: string;
  anchor_hash: string;
}): AuditChainState {
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
    ...(row.chain_seq === null ? {} : { chainSeq: Number(row.chain_seq) }),
  };
}

/** Two chains' verified totals as one: entries added, the widest id range. */
function mergeVerified(a: AuditVerification, b: AuditVerification): AuditVerification {
  if (!a.ok || !b.ok) return a.ok ? b : a;
  if (b.entries === 0) return a;
  if (a.entries === 0) return b;
  return {
    ok: true,
    entries: a.entries + b.entries,
    firstId: Math.min(a.firstId!, b.firstId!),
    lastId: Math.max(a.lastId!, b.lastId!),
  };
}

/** TypeORM's postgres driver returns [rows, affected] for DELETE. */
function affectedRows(result: unknown, fallback: number): number {
  return Array.isArray(result) && typeof result[1] === 'number' ? result[1] : fallback;
}

interface NewHead extends ChainHead {
  key: string;
  /** The head the chain's first new entry links to. */
  was: ChainHead;
}

/** Seals each chain's entries after its head; entries by input position, and each chain's new head. */
function sealByChain(
  inputs: AuditEntryInput[],
  ids: number[],
  headOf: (key: string) => ChainHead,
): { entries: AuditEntry[]; newHeads: NewHead[] } {
  const keys = [...new Set(inputs.map((input) => chainKeyOf(input.tenantId)))].sort();
  const sealed = new Map<number, AuditEntry>();
  const newHeads: NewHead[] = [];
  for (const key of keys) {
    const positions = inputs.flatMap((input, i) => (chainKeyOf(input.tenantId) === key ? [i] : []));
    const was = headOf(key);
    const entries = sealChainEntries(
      was,
      positions.map((i) => ids[i]),
      positions.map((i) => inputs[i]),
    );
    entries.forEach((entry, n) => sealed.set(positions[n], entry));
    const last = entries[entries.length - 1];
    newHeads.push({ key, id: last.chainSeq!, hash: last.hash, was });
  }
  return { entries: inputs.map((_, i) => sealed.get(i)!), newHeads };
}

/** The thirteen entry columns of INSERT_ENTRIES_AND_HEADS and APPEND_IF_HEADS_UNCHANGED ($1 to $13). */
function entryColumns(entries: AuditEntry[]): unknown[][] {
  const column = <T>(value: (e: AuditEntry) => T) => entries.map(value);
  return [
    column((e) => e.id),
    column((e) => e.occurredAt),
    column((e) => e.tenantId),
    column((e) => e.principal),
    column((e) => e.action),
    column((e) => e.resource),
    column((e) => e.result),
    column((e) => e.code),
    column((e) => e.requestId),
    column((e) => e.prevHash),
    column((e) => e.hash),
    column((e) => e.occurrences ?? null),
    column((e) => e.chainSeq),
  ];
}

/** The chains' new heads ($14 to $16). */
function headColumns(heads: NewHead[]): unknown[][] {
  return [heads.map((head) => head.key), heads.map((head) => head.id), heads.map((head) => head.hash)];
}
