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
