import { EventEnvelope } from '@ca/contracts';
import { DataSource, EntityManager } from 'typeorm';

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
  return dataSource.transaction(async (manager) => {
    const inserted: unknown[] = await manager.query(
      `INSERT INTO ${schema}.inbox (event_id, type) VALUES ($1, $2) ON CONFLICT (event_id) DO NOTHING RETURNING event_id`,
      [event.id, event.type],
    );
    if (inserted.length === 0) return false;
    await effect(manager);
    return true;
  });
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
  if (events.length === 0) return [];
  return dataSource.transaction(async (manager) => {
    const inserted: { event_id: string }[] = await manager.query(
      `INSERT INTO ${schema}.inbox (event_id, type) SELECT * FROM unnest($1::uuid[], $2::text[])
       ON CONFLICT (event_id) DO NOTHING RETURNING event_id`,
      [events.map((event) => event.id), events.map((event) => event.type)],
    );
    const ids = new Set(inserted.map((row) => row.event_id.toLowerCase()));
    const fresh = events.filter((event) => ids.delete(event.id.toLowerCase()));
    if (fresh.length > 0) await effect(manager, fresh);
    return fresh;
  });
}
