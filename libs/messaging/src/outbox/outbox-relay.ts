import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { EventEnvelope } from '@ca/contracts';
import { DataSource } from 'typeorm';
import { prepared } from '@ca/persistence';
import { metricsRegistry } from '@ca/observability';
import { Counter } from 'prom-client';
import { EventBus } from '../events/event-bus';
import { outboxSetAsideSql } from './outbox.sql';

interface OutboxRow {
  seq: string;
  id: string;
  type: string;
  tenant_id: string;
  payload: unknown;
  occurred_at: Date;
  trace_context: Record<string, string> | null;
}

const BATCH = 100;

export interface OutboxRelayOptions {
  /** The safety net's period between drains (a commit nudges a drain at once). */
  pollMs?: number;
  /** See OUTBOX_CLAIM_MS. */
  claimMs?: number;
  /**
   * The database runs one statement at a time, every session's (the embedded PGlite): a claim
   * is then one statement, with no transaction and no advisory lock around it, since no other
   * claim can run between its reading the head and its writing the claim.
   */
  oneStatementAtATime?: boolean;
}

/**
 * How long a claim keeps other relays off the head of the outbox: a batch publishes in
 * milliseconds, and a JetStream publish gives up after 5 s. A replica killed mid-publish delays
 * the events behind its claim by at most this long.
 */
export const OUTBOX_CLAIM_MS = 10_000;

/**
 * Publishes a schema's outbox to the EventBus in order, a batch at a time, then marks the batch's rows published.
 * Publishing happens outside any transaction (embedded Postgres serialises transactions, and a
 * publish may write to the same database); a crash between publish and mark only republishes,
 * which the stream's de-duplication by event id and the consumers' inboxes absorb.
 *
 * Replicas of a service run one relay each on the same outbox. A relay first claims the head of
 * the outbox (the oldest unpublished rows) for OUTBOX_CLAIM_MS, and only while no other relay holds
 * a live claim on unpublished rows, so the stream keeps the outbox order and no two relays publish
 * the same rows at once. A relay that finds the head claimed returns at once (the holder drains
 * the rest); a relay that died leaves a claim that lapses, after which another takes over.
 */
export class OutboxRelay {
  private readonly logger = new Logger('OutboxRelay');
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private again = false;
  /** A commit recorded events since the last claim began: the claim need not look first. */
  private recorded = false;
  private stopped = false;
  /** This relay in `claimed_by`. */
  private readonly relayId = randomUUID();
  private readonly sql: ReturnType<typeof relayStatements>;
  private readonly pollMs: number;
  private readonly claimMs: number;
  private readonly oneStatementAtATime: boolean;

  constructor(
    private readonly dataSource: DataSource,
    private readonly schema: string,
    private readonly bus: EventBus,
    options: OutboxRelayOptions = {},
  ) {
    this.sql = relayStatements(schema);
    this.pollMs = options.pollMs ?? 1_000;
    this.claimMs = options.claimMs ?? OUTBOX_CLAIM_MS;
    this.oneStatementAtATime = options.oneStatementAtATime ?? false;
  }

  start(): void {
    this.stopped = false;
    this.timer = setInterval(() => this.poll(), this.pollMs);
    this.poll();
  }

  /** Asks for a drain now (called right after a commit that recorded events). */
  nudge(): void {
    this.recorded = true;
    this.poll();
  }

  /** A drain, without knowing whether anything is pending (the safety net's timer). */
  private poll(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.drainLoop().finally(() => (this.running = undefined));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running;
  }

  /**
   * Publishes everything pending; resolves when the outbox is empty, another relay holds its head
   * (that one publishes the rest), or the bus fails. `recorded`: events are known to be pending
   * (a commit just nudged), so the first claim does not look before it claims.
   */
  async drain(recorded = false): Promise<number> {
    await this.ensureSetAsideColumns();
    let total = 0;
    let look = !recorded;
    for (;;) {
      const rows = await this.claimHead(look);
      look = true;
      if (rows.length === 0) return total;
      const seqs = rows.map((row) => row.seq);
      try {
        // The batch in one publish and one mark: a failure between them only republishes.
        await this.bus.publishBatch(rows.map(toEnvelope));
      } catch (error) {
        // One row the bus refuses for good must not hold the others: find it, one at a time.
        try {
          if (!isRefusedForGood(error)) throw error;
          await this.publishOneByOne(rows);
        } catch (failure) {
          await this.release(seqs).catch(() => undefined);
          throw failure;
        }
        total += rows.length;
        continue;
      }
      await this.markPublished(seqs);
      total += rows.length;
      // A short batch was the whole outbox when claimed; what a commit recorded since nudges
      // another drain (`again`), so looking once more would only find it empty.
      if (rows.length < BATCH) return total;
    }
  }

  /**
   * After a failed batch: each row in order; one refused for good (permission, size, malformed)
   * is set aside with its reason and the next goes on, so a tenant's other events keep their
   * order; a transient failure (no connection, timeout) stops here and is thrown, to retry.
   */
  private async publishOneByOne(rows: OutboxRow[]): Promise<void> {
    for (const row of rows) {
      try {
        await this.bus.publish(toEnvelope(row));
        await this.markPublished([row.seq]);
      } catch (error) {
        if (!isRefusedForGood(error)) throw error;
        await this.setAside(row, error);
      }
    }
  }

  private async markPublished(seqs: string[]): Promise<void> {
    await this.dataSource.query(this.sql.markPublished, [seqs]);
  }

  private async setAside(row: OutboxRow, error: unknown): Promise<void> {
    const reason = (error instanceof Error ? error.message : String(error)).slice(0, 1_000);
    await this.dataSource.query(
      `UPDATE ${this.schema}.outbox SET set_aside_at = now(), set_aside_reason = $2,
          claimed_by = NULL, claimed_until = NULL WHERE seq = $1`,
      [row.seq, reason],
    );
    outboxSetAsideTotal.inc({ schema: this.schema, type: row.type.slice(0, 64) });
    this.logger.error(
      { schema: this.schema, seq: row.seq, eventId: row.id, type: row.type, tenantId: row.tenant_id, reason },
      'outbox row refused by the bus: set aside, the rows behind it go on (npm run ops -- events outbox)',
    );
  }

  private columnsReady?: Promise<void>;

  /** The set-aside columns, added once per process under the schema's migration lock. */
  private ensureSetAsideColumns(): Promise<void> {
    this.columnsReady ??= this.dataSource
      .transaction(async (manager) => {
        await manager.query(ADVISORY_LOCK, [`${this.schema} migrations`]);
        await manager.query(outboxSetAsideSql(this.schema));
      })
      .catch((error: unknown) => {
        this.columnsReady = undefined;
        throw error;
      });
    return this.columnsReady;
  }

  /**
   * Claims the next batch unless another relay's claim is live. Claims are taken one at a time per
   * schema (a transaction-scoped advisory lock held for the one statement, or the embedded
   * database's one statement at a time), so two relays never both see the head free; the lease
   * times come from the database clock, shared by all replicas.
   */
  private async claimHead(look: boolean): Promise<OutboxRow[]> {
    // Most polls find the outbox empty: one plain statement says so, where the claim is a
    // transaction of three on Postgres. Not after a nudge.
    if (look) {
      const [pending]: { any: boolean }[] = await this.dataSource.query(this.sql.anyPending);
      if (!pending?.any) return [];
    }
    const claim = [this.relayId, this.claimMs];
    const rows: OutboxRow[] = this.oneStatementAtATime
      ? await this.dataSource.query(this.sql.claimHead, claim)
      : await this.dataSource.transaction(async (manager) => {
          await manager.query(ADVISORY_LOCK, [`${this.schema}.outbox relay claim`]);
          return manager.query(this.sql.claimHead, claim);
        });
    // UPDATE … RETURNING has no order; the stream gets the outbox order.
    return normaliseRows(rows).sort((a, b) => compareSeq(a.seq, b.seq));
  }

  /** Gives a batch back after a failed publish, so another relay need not wait for the claim to lapse. */
  private async release(seqs: string[]): Promise<void> {
    await this.dataSource.query(
      `UPDATE ${this.schema}.outbox SET claimed_by = NULL, claimed_until = NULL
        WHERE seq = ANY($1::bigint[]) AND claimed_by = $2`,
      [seqs, this.relayId],
    );
  }

  /** Events recorded and not yet published, set-aside rows apart (the `ca_outbox_backlog` gauge). */
  async backlog(): Promise<number> {
    await this.ensureSetAsideColumns();
    const rows: { count: string }[] = await this.dataSource.query(
      `SELECT count(*) AS count FROM ${this.schema}.outbox WHERE published_at IS NULL AND set_aside_at IS NULL`,
    );
    return Number(rows[0]?.count ?? 0);
  }

  private async drainLoop(): Promise<void> {
    do {
      this.again = false;
      const recorded = this.recorded;
      this.recorded = false;
      try {
        await this.drain(recorded);
      } catch (err) {
        this.logger.warn({ err, schema: this.schema }, 'outbox relay could not publish; will retry');
        return;
      }
    } while (this.again && !this.stopped);
  }
}

/** TypeORM's postgres driver returns UPDATE … RETURNING as [rows, count]. */
function normaliseRows(result: unknown): OutboxRow[] {
  if (
    Array.isArray(result) &&
    result.length === 2 &&
    Array.isArray(result[0]) &&
    typeof result[1] === 'number'
  ) {
    return result[0] as OutboxRow[];
  }
  return result as OutboxRow[];
}

/**
 * A refusal that publishing again cannot change: the user may not publish the subject, the event
 * is larger than the server takes, or it cannot be encoded. Anything else (no connection, a
 * timeout, no stream yet) is transient and retried.
 */
export function isRefusedForGood(error: unknown): boolean {
  const { code, message, name } = (error ?? {}) as { code?: unknown; message?: unknown; name?: unknown };
  if (name === 'TypeError' || name === 'SyntaxError' || name === 'RangeError') return true;
  if (typeof code === 'string' && REFUSED_CODES.has(code)) return true;
  return /permissions violation|max(imum)? payload|message size exceeds|invalid subject/i.test(
    String(message),
  );
}

const REFUSED_CODES = new Set([
  'PERMISSIONS_VIOLATION',
  'MAX_PAYLOAD_EXCEEDED',
  'BAD_SUBJECT',
  'BAD_PAYLOAD',
  'BAD_JSON',
]);

/** Outbox rows the bus refused for good (OutboxRelay sets them aside). */
export const outboxSetAsideTotal = new Counter({
  name: 'ca_outbox_set_aside_total',
  help: 'Outbox rows set aside because the bus refused them for good (permission, size, malformed).',
  labelNames: ['schema', 'type'] as const,
  registers: [metricsRegistry],
});

function compareSeq(a: string, b: string): number {
  const diff = BigInt(a) - BigInt(b);
  return diff < 0n ? -1 : diff > 0n ? 1 : 0;
}

function toEnvelope(row: OutboxRow): EventEnvelope {
  return {
    id: row.id,
    type: row.type,
    tenantId: row.tenant_id,
    occurredAt: new Date(row.occurred_at).toISOString(),
    payload: row.payload,
    ...(row.trace_context ? { traceContext: row.trace_context } : {}),
  };
}

const ADVISORY_LOCK = prepared('SELECT pg_advisory_xact_lock(hashtext($1))');

/** The statements a relay runs on every poll and batch, prepared (keyed by the outbox's indexes). */
function relayStatements(schema: string) {
  const outbox = `${schema}.outbox`;
  return {
    anyPending: prepared(
      `SELECT EXISTS (SELECT 1 FROM ${outbox} WHERE published_at IS NULL AND set_aside_at IS NULL) AS any`,
    ),
    claimHead: prepared(
      `UPDATE ${outbox} o SET claimed_by = $1, claimed_until = now() + $2 * interval '1 millisecond'
         FROM (SELECT seq FROM ${outbox} WHERE published_at IS NULL AND set_aside_at IS NULL
                ORDER BY seq LIMIT ${BATCH}) head
        WHERE o.seq = head.seq AND NOT EXISTS (
          SELECT 1 FROM ${outbox} WHERE published_at IS NULL AND set_aside_at IS NULL
            AND claimed_by <> $1 AND claimed_until > now())
        RETURNING o.seq, o.id, o.type, o.tenant_id, o.payload, o.occurred_at, o.trace_context`,
    ),
    markPublished: prepared(
      `UPDATE ${outbox} SET published_at = now(), claimed_by = NULL, claimed_until = NULL
        WHERE seq = ANY($1::bigint[])`,
    ),
  };
}
