import { EventEnvelope } from '@ca/contracts';
import { DataSource, EntityManager } from 'typeorm';
import { prepared } from '@ca/persistence';

/**
 * Applies an event's effect at most once per consumer: the event id goes into the consumer's
 * inbox in the same transaction as the effect, so a redelivered event finds its id and is skipped.
 * Returns false for a duplicate.
 */
export async function applyOnce(
  dataSource: DataSource,
  schema: string,
  event: EventEnvelope,
  effect: (manager: EntityManager) => Promise<void>,
): Promise<boolean> {
  if (recentlyApplied(dataSource).hasAll(schema, [event])) return false;
  const applied = await dataSource.transaction(async (manager) => {
    const inserted: unknown[] = await manager.query(
      prepared(
        `INSERT INTO ${schema}.inbox (event_id, type) VALUES ($1, $2) ON CONFLICT (event_id) DO NOTHING RETURNING event_id`,
      ),
      [event.id, event.type],
    );
    if (inserted.length === 0) return false;
    await effect(manager);
    return true;
  });
  recentlyApplied(dataSource).add(schema, [event]);
  return applied;
}

/**
 * applyOnce for a run of events in one transaction: one inbox insert for all their ids, then the
 * effect of those not applied before (in the run's order; duplicates within the run count once).
 * Returns them. All or nothing: if the effect throws, no id stays in the inbox.
 */
export async function applyOnceEach<T extends EventEnvelope>(
  dataSource: DataSource,
  schema: string,
  events: readonly T[],
  effect: (manager: EntityManager, fresh: T[]) => Promise<void>,
): Promise<T[]> {
  if (events.length === 0 || recentlyApplied(dataSource).hasAll(schema, events)) return [];
  const applied = await dataSource.transaction(async (manager) => {
    const inserted: { event_id: string }[] = await manager.query(
      prepared(`INSERT INTO ${schema}.inbox (event_id, type) SELECT * FROM unnest($1::uuid[], $2::text[])
       ON CONFLICT (event_id) DO NOTHING RETURNING event_id`),
      [events.map((event) => event.id), events.map((event) => event.type)],
    );
    const ids = new Set(inserted.map((row) => row.event_id.toLowerCase()));
    const fresh = events.filter((event) => ids.delete(event.id.toLowerCase()));
    if (fresh.length > 0) await effect(manager, fresh);
    return fresh;
  });
  recentlyApplied(dataSource).add(schema, events);
  return applied;
}

/**
 * Enters events in the consumer's inbox with no effect, in one statement: their effect is already
 * in place (a direct path stored it, committed), and the inbox row is what says they came through
 * the stream. A redelivery of them is then skipped like any applied event.
 */
export async function recordApplied(
  dataSource: DataSource,
  schema: string,
  events: readonly EventEnvelope[],
): Promise<void> {
  if (events.length === 0) return;
  await dataSource.query(
    prepared(`INSERT INTO ${schema}.inbox (event_id, type) SELECT * FROM unnest($1::uuid[], $2::text[])
     ON CONFLICT (event_id) DO NOTHING`),
    [events.map((event) => event.id), events.map((event) => event.type)],
  );
  recentlyApplied(dataSource).add(schema, events);
}

/**
 * Ids this process has seen committed in an inbox lately: the stream's copy of an event a direct
 * path applied a moment before (read-your-writes, the webhooks early path) is then skipped without
 * a transaction, which in embedded mode is three turns of the one database session. Only ever a
 * shortcut to the answer the inbox would give (an id is added after its commit); an id not here
 * goes to the inbox as before.
 */
class RecentlyApplied {
  private readonly ids = new Set<string>();

  constructor(private readonly capacity: number) {}

  hasAll(schema: string, events: readonly EventEnvelope[]): boolean {
    return events.every((event) => this.ids.has(key(schema, event)));
  }

  add(schema: string, events: readonly EventEnvelope[]): void {
    for (const event of events) {
      const id = key(schema, event);
      this.ids.delete(id);
      this.ids.add(id);
    }
    // A Set iterates in insertion order: the oldest go first.
    for (const oldest of this.ids) {
      if (this.ids.size <= this.capacity) break;
      this.ids.delete(oldest);
    }
  }
}

const key = (schema: string, event: EventEnvelope) => `${schema}:${event.id.toLowerCase()}`;

/** Enough for the seconds between a direct path and the stream's copy at thousands of events/s. */
const RECENT_CAPACITY = 20_000;

/** Per database (a process can hold several, as test clusters do), so an id never crosses them. */
const recentByDatabase = new WeakMap<DataSource, RecentlyApplied>();

function recentlyApplied(dataSource: DataSource): RecentlyApplied {
  let recent = recentByDatabase.get(dataSource);
  if (!recent) recentByDatabase.set(dataSource, (recent = new RecentlyApplied(RECENT_CAPACITY)));
  return recent;
}
