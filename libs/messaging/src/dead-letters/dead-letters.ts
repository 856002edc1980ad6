import { Logger } from '@nestjs/common';
import { EventEnvelope } from '@ca/contracts';
import { metricsRegistry } from '@ca/observability';
import { Counter } from 'prom-client';
import { DataSource } from 'typeorm';

/** Handlings of one event that may fail before it is set aside (EVENT_MAX_ATTEMPTS). */
export const DEFAULT_MAX_ATTEMPTS = 5;

/**
 * Why an event was set aside: its payload did not parse, its handler kept failing, or it kept
 * waiting for an event it depends on (a leaf's before its CA's) that has not come yet.
 */
export type DeadLetterReason = 'invalid' | 'failed' | 'waiting';

/**
 * Thrown by a handler for an event that comes before one it depends on (a leaf's
 * `certificate.issued` before its CA's `ca.initialized`): nothing is applied and the event comes
 * again with backoff; after the last attempt it waits in the dead letters, and the next event of
 * its tenant that a CA event brings (or any event of that tenant) has it replayed.
 */
export class WaitingForDependency extends Error {
  override readonly name = 'WaitingForDependency';
}

/**
 * Thrown by a handler for an event it refuses for good on reading it (a timestamp from the
 * future): set aside at once as 'invalid', never retried.
 */
export class RefusedEvent extends Error {
  override readonly name = 'RefusedEvent';
}

export function isWaitingForDependency(error: unknown): boolean {
  return (
    error instanceof WaitingForDependency || (error as Error | undefined)?.name === 'WaitingForDependency'
  );
}

/** Events a consumer set aside in its dead-letter table, by reason. */
export const deadLetteredEventsTotal = new Counter({
  name: 'ca_events_dead_lettered_total',
  help: 'Events a durable consumer set aside in its dead-letter table (invalid payload, or handler failed every attempt).',
  labelNames: ['consumer', 'reason'] as const,
  registers: [metricsRegistry],
});

/** Where a consumer puts an event it gives up on, so that the events behind it move on. */
export interface DeadLetterSink {
  record(letter: {
    consumer: string;
    event: EventEnvelope;
    reason: DeadLetterReason;
    detail: string;
    attempts: number;
  }): Promise<void>;
  /** Has the consumer's letters that wait on `tenantId` replayed (an event they depend on came). */
  wake?(consumer: string, tenantId: string): Promise<void>;
}

export interface DeadLetter {
  id: string;
  consumer: string;
  eventId: string;
  type: string;
  tenantId: string;
  reason: DeadLetterReason;
  detail: string;
  attempts: number;
  firstSeen: Date;
  lastSeen: Date;
  event: EventEnvelope;
}

interface DeadLetterRow {
  id: string;
  consumer: string;
  event_id: string;
  type: string;
  tenant_id: string;
  reason: DeadLetterReason;
  detail: string;
  attempts: number;
  first_seen: Date;
  last_seen: Date;
  body: EventEnvelope;
}

/**
 * `<schema>.event_dead_letters` of a consuming service: one row per consumer and event id (set
 * aside again, the row's attempts and last_seen grow). Listed, replayed (published again, for
 * every consumer; those that applied it skip it by their inbox) or dropped by
 * `npm run ops -- events dead-letters` (docs/operations.md#dead-letters).
 */
export class DeadLetterStore implements DeadLetterSink {
  private readonly logger = new Logger('DeadLetters');

  constructor(
    private readonly dataSource: DataSource,
    readonly schema: string,
  ) {}

  /**
   * Creates the table if needed (at service start; the table is the service's alone). Replicas
   * starting together would race on IF NOT EXISTS (Postgres then fails one with a duplicate
   * pg_type key), so the DDL runs under the schema's migration lock, one replica at a time.
   */
  async ensure(): Promise<this> {
    await this.dataSource.transaction(async (manager) => {
      await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`${this.schema} migrations`]);
      await manager.query(`CREATE TABLE IF NOT EXISTS ${this.schema}.event_dead_letters (
        id bigserial PRIMARY KEY, consumer text NOT NULL, event_id text NOT NULL, type text NOT NULL,
        tenant_id text NOT NULL, reason text NOT NULL, detail text NOT NULL, attempts integer NOT NULL,
        first_seen timestamptz NOT NULL DEFAULT now(), last_seen timestamptz NOT NULL DEFAULT now(),
        body jsonb NOT NULL, replay_requested_at timestamptz, UNIQUE (consumer, event_id))`);
    });
    return this;
  }

  async record(letter: Parameters<DeadLetterSink['record']>[0]): Promise<void> {
    const { consumer, event, reason, detail, attempts } = letter;
    // What failed to parse may lack any field: keep what there is, bounded.
    const text = (value: unknown) => String(value ?? '').slice(0, 200);
    await this.dataSource.query(
      `INSERT INTO ${this.schema}.event_dead_letters
         (consumer, event_id, type, tenant_id, reason, detail, attempts, body)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb)
       ON CONFLICT (consumer, event_id) DO UPDATE SET reason = EXCLUDED.reason, detail = EXCLUDED.detail,
         attempts = ${this.schema}.event_dead_letters.attempts + EXCLUDED.attempts, last_seen = now()`,
      [
        consumer,
        text(event?.id),
        text(event?.type),
        text(event?.tenantId),
        reason,
        detail.slice(0, 1_000),
        attempts,
        JSON.stringify(event ?? null),
      ],
    );
    deadLetteredEventsTotal.inc({ consumer, reason });
    this.logger.error(
      { consumer, eventId: text(event?.id), type: text(event?.type), reason, detail, attempts },
      'event set aside in the dead-letter table; the consumer moves on',
    );
  }

  /**
   * The letters of `consumer` that wait for an event of `tenantId`: asked to replay (the
   * DeadLetterReplayer applies them within seconds; one still early waits again).
   */
  async wake(consumer: string, tenantId: string): Promise<void> {
    const result: [unknown[], number] = await this.dataSource.query(
      `UPDATE ${this.schema}.event_dead_letters SET replay_requested_at = now()
        WHERE consumer = $1 AND tenant_id = $2 AND reason = 'waiting' AND replay_requested_at IS NULL`,
      [consumer, tenantId],
    );
    if (result[1] > 0)
      this.logger.log(
        { consumer, tenantId, letters: result[1] },
        'events that waited for this tenant replayed',
      );
  }

  async list(limit = 100): Promise<DeadLetter[]> {
    const rows: DeadLetterRow[] = await this.dataSource.query(
      `SELECT * FROM ${this.schema}.event_dead_letters ORDER BY id LIMIT $1`,
      [limit],
    );
    return rows.map(toDeadLetter);
  }

  async get(id: string): Promise<DeadLetter | undefined> {
    if (!/^[0-9]{1,18}$/.test(id)) return undefined;
    const rows: DeadLetterRow[] = await this.dataSource.query(
      `SELECT * FROM ${this.schema}.event_dead_letters WHERE id = $1`,
      [id],
    );
    return rows.length === 0 ? undefined : toDeadLetter(rows[0]);
  }

  /** Asks the consumer to apply the event again (see DeadLetterReplayer); false if there is no such row. */
  async requestReplay(id: string): Promise<boolean> {
    if (!/^[0-9]{1,18}$/.test(id)) return false;
    const result: [unknown[], number] = await this.dataSource.query(
      `UPDATE ${this.schema}.event_dead_letters SET replay_requested_at = now() WHERE id = $1`,
      [id],
    );
    return result[1] > 0;
  }

  /** The consumer's rows whose replay was asked for, oldest first. */
  async replaysOf(consumer: string): Promise<DeadLetter[]> {
    const rows: DeadLetterRow[] = await this.dataSource.query(
      `SELECT * FROM ${this.schema}.event_dead_letters
        WHERE consumer = $1 AND replay_requested_at IS NOT NULL ORDER BY id LIMIT 100`,
      [consumer],
    );
    return rows.map(toDeadLetter);
  }

  /** A replay failed again: one more attempt, the new reason, and no replay pending. */
  async replayFailed(id: string, detail: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE ${this.schema}.event_dead_letters SET attempts = attempts + 1, detail = $2,
          last_seen = now(), replay_requested_at = NULL WHERE id = $1`,
      [id, detail.slice(0, 1_000)],
    );
  }

  /** Whether the table exists (a service that never started has none). */
  async exists(): Promise<boolean> {
    const rows: { name: string | null }[] = await this.dataSource.query(
      `SELECT to_regclass($1)::text AS name`,
      [`${this.schema}.event_dead_letters`],
    );
    return rows[0]?.name !== null && rows[0]?.name !== undefined;
  }

  /** Deletes the row; false if there is none. */
  async drop(id: string): Promise<boolean> {
    if (!/^[0-9]{1,18}$/.test(id)) return false;
    const result: [unknown[], number] = await this.dataSource.query(
      `DELETE FROM ${this.schema}.event_dead_letters WHERE id = $1`,
      [id],
    );
    return result[1] > 0;
  }
}

function toDeadLetter(row: DeadLetterRow): DeadLetter {
  return {
    id: String(row.id),
    consumer: row.consumer,
    eventId: row.event_id,
    type: row.type,
    tenantId: row.tenant_id,
    reason: row.reason,
    detail: row.detail,
    attempts: row.attempts,
    firstSeen: row.first_seen,
    lastSeen: row.last_seen,
    event: row.body,
  };
}

/**
 * Counts failed handlings per event (by id) in a subscription and says when to give up: after
 * `maxAttempts` failures the event goes to the sink and counts as handled. Without a sink, an
 * event is retried forever (as before dead letters). Counts are kept in memory: a restart gives a
 * poison event another `maxAttempts` tries, which only delays it.
 */
export class AttemptCounter {
  private readonly failures = new Map<string, number>();

  constructor(
    private readonly consumer: string,
    private readonly sink: DeadLetterSink | undefined,
    private readonly maxAttempts = DEFAULT_MAX_ATTEMPTS,
  ) {}

  /** Whether `event` failed before (its next delivery should be a run of one). */
  failedBefore(event: EventEnvelope): boolean {
    return this.failures.has(event.id);
  }

  succeeded(events: readonly EventEnvelope[]): void {
    for (const event of events) {
      this.failures.delete(event.id);
      // A CA event (rare) may be what letters of its tenant wait for; so may any event of a tenant
      // this process saw waiting.
      const tenantId = event.tenantId;
      if (this.sink?.wake && (event.type.startsWith('ca.') || this.waitingTenants.has(tenantId))) {
        this.waitingTenants.delete(tenantId);
        void this.sink.wake(this.consumer, tenantId).catch(() => undefined);
      }
    }
  }

  /** Tenants of letters this process set aside as waiting. */
  private readonly waitingTenants = new Set<string>();

  /** Handlings of `event` that failed so far (the next redelivery waits longer). */
  failuresOf(event: EventEnvelope): number {
    return this.failures.get(event.id) ?? 0;
  }

  /**
   * Records a failed handling of a run. True when the run was one event that has now failed
   * `maxAttempts` times and was set aside (the caller moves past it); false: retry.
   */
  async failed(events: readonly EventEnvelope[], error: unknown): Promise<boolean> {
    const first = events[0];
    const attempts = (this.failures.get(first.id) ?? 0) + 1;
    this.failures.set(first.id, attempts);
    const refused = (error as Error | undefined)?.name === 'RefusedEvent';
    if (!this.sink || events.length > 1 || (attempts < this.maxAttempts && !refused)) return false;
    const detail = error instanceof Error ? error.message : String(error);
    const reason = refused ? 'invalid' : isWaitingForDependency(error) ? 'waiting' : 'failed';
    await this.sink.record({ consumer: this.consumer, event: first, reason, detail, attempts });
    if (reason === 'waiting' && typeof first.tenantId === 'string') this.waitingTenants.add(first.tenantId);
    this.failures.delete(first.id);
    return true;
  }
}
