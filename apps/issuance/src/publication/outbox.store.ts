import { EventEnvelope } from '@ca/contracts';
import { insertEvents, recordEvent } from '@ca/messaging';
import { EntityManager } from 'typeorm';
import { ISSUANCE_SCHEMA } from '../issuance.schema';

/**
 * `issuance.outbox`: the events issuance records, in the transaction of the change they announce
 * (relayed to the stream by the OutboxRelay of libs/messaging), and read back by the direct path
 * to the responder.
 */
export abstract class OutboxStore {
  /** Records an event of `type`, in the caller's transaction; returns it. */
  abstract record<T extends { tenantId: string }>(type: string, payload: T): Promise<EventEnvelope<T>>;
  /** Records events made already, in one statement. */
  abstract insert(events: readonly EventEnvelope[]): Promise<void>;
  /** Where the outbox ends now (its newest `seq`, '0' when empty). */
  abstract mark(): Promise<string>;
  /** The tenant's events of these types recorded past `since` (a mark), in order. */
  abstract eventsSince(tenantId: string, types: readonly string[], since: string): Promise<EventEnvelope[]>;
}

export class SqlOutboxStore extends OutboxStore {
  constructor(private readonly db: EntityManager) {
    super();
  }

  record<T extends { tenantId: string }>(type: string, payload: T): Promise<EventEnvelope<T>> {
    return recordEvent<T>(this.db, ISSUANCE_SCHEMA, type, payload);
  }

  insert(events: readonly EventEnvelope[]): Promise<void> {
    return insertEvents(this.db, ISSUANCE_SCHEMA, events);
  }

  async mark(): Promise<string> {
    const [{ seq }]: { seq: string | null }[] = await this.db.query(
      'SELECT max(seq)::text AS seq FROM issuance.outbox',
    );
    return seq ?? '0';
  }

  async eventsSince(tenantId: string, types: readonly string[], since: string): Promise<EventEnvelope[]> {
    const rows: {
      id: string;
      type: string;
      tenant_id: string;
      payload: unknown;
      occurred_at: Date;
    }[] = await this.db.query(
      `SELECT id, type, tenant_id, payload, occurred_at FROM issuance.outbox
        WHERE seq > $3::bigint AND tenant_id = $1 AND type = ANY($2) ORDER BY seq`,
      [tenantId, types, since],
    );
    return rows.map((row) => ({
      id: row.id,
      type: row.type,
      tenantId: row.tenant_id,
      occurredAt: new Date(row.occurred_at).toISOString(),
      payload: typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload,
    })) as EventEnvelope[];
  }
}
