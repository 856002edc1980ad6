import { setTimeout as sleep } from 'node:timers/promises';
import { EventEnvelope } from '@ca/contracts';
import { TestDatabase, createTestDatabase, databaseKinds } from '@ca/persistence/testing';
import { DataSource } from 'typeorm';
import { EventBus, EventSubscription } from '../events/event-bus';
import { OutboxRelay } from './outbox-relay';
import { insertEvents, newEvent } from './outbox';
import { outboxClaimSql, outboxTableSql, outboxTraceContextSql } from './outbox.sql';

/** Counts what reaches the stream; each publish takes a little while, so two relays overlap. */
class CountingBus extends EventBus {
  readonly published: EventEnvelope[] = [];
  failNext = false;
  /** Event types this user may not publish, refused as NATS refuses them (the rest of a batch goes in). */
  readonly refused = new Set<string>();

  async publish(event: EventEnvelope): Promise<void> {
    await this.publishBatch([event]);
  }

  async publishBatch(events: readonly EventEnvelope[]): Promise<void> {
    await sleep(5);
    if (this.failNext) {
      this.failNext = false;
      throw new Error('bus down');
    }
    this.published.push(...events.filter((event) => !this.refused.has(event.type)));
    const refused = events.find((event) => this.refused.has(event.type));
    if (refused)
      throw Object.assign(new Error(`Permissions Violation for Publish to "ca.events.p00.${refused.type}"`), {
        code: 'PERMISSIONS_VIOLATION',
      });
  }

  subscribe(): Promise<EventSubscription> {
    throw new Error('not used');
  }

  async close(): Promise<void> {}

  async pending(): Promise<number> {
    return 0;
  }
}

const TENANT = '00000000-0000-4000-8000-000000000001';

describe.each(databaseKinds())('two outbox relays on one schema (%s)', (kind) => {
  let db: TestDatabase;
  let dataSource: DataSource;

  beforeAll(async () => {
    db = await createTestDatabase(kind);
    dataSource = new DataSource({ type: 'postgres', url: db.url, extra: { max: 6 } });
    await dataSource.initialize();
    await dataSource.query('CREATE SCHEMA producer');
    for (const sql of [...outboxTableSql('producer'), outboxTraceContextSql('producer')])
      await dataSource.query(sql);
    await dataSource.query(outboxClaimSql('producer')); // idempotent on a table that has the columns
  }, 60_000);

  afterAll(async () => {
    await dataSource?.destroy();
    await db?.drop();
  }, 60_000);

  beforeEach(() => dataSource.query('TRUNCATE producer.outbox'));

  async function record(count: number): Promise<string[]> {
    const events = Array.from({ length: count }, (_, i) => newEvent('test.counted', { tenantId: TENANT, i }));
    await dataSource.transaction((manager) => insertEvents(manager, 'producer', events));
    return events.map((event) => event.id);
  }

  // The embedded database runs one statement at a time: there a claim is one statement alone.
  const claims = kind === 'embedded' ? [false, true] : [false];
  it.each(claims)(
    'publishes every event exactly once, in outbox order, while both drain at the same time (claim in one statement: %s)',
    async (oneStatementAtATime) => {
      const ids = await record(450);
      const bus = new CountingBus();
      const relays = [
        new OutboxRelay(dataSource, 'producer', bus, { oneStatementAtATime }),
        new OutboxRelay(dataSource, 'producer', bus, { oneStatementAtATime }),
      ];
      // Each keeps draining until the outbox is empty, as the nudges and the poll would.
      const counts = await Promise.all(
        relays.map(async (relay) => {
          let total = 0;
          while ((await relay.backlog()) > 0) total += await relay.drain();
          return total;
        }),
      );
      const publishedIds = bus.published.map((event) => event.id);
      expect(publishedIds).toEqual(ids);
      expect(counts[0] + counts[1]).toBe(450);
    },
    60_000,
  );

  it('lets the other relay take over at once when a publish fails', async () => {
    const ids = await record(30);
    const failing = new CountingBus();
    failing.failNext = true;
    const healthy = new CountingBus();
    await expect(new OutboxRelay(dataSource, 'producer', failing).drain()).rejects.toThrow('bus down');
    await expect(new OutboxRelay(dataSource, 'producer', healthy).drain()).resolves.toBe(30);
    expect(healthy.published.map((event) => event.id)).toEqual(ids);
  }, 30_000);

  it('sets aside a row the bus refuses for good, with its reason, and publishes the rows behind it in order', async () => {
    const before = await record(3);
    const refused = newEvent('test.refused', { tenantId: TENANT });
    await dataSource.transaction((manager) => insertEvents(manager, 'producer', [refused]));
    const after = await record(150); // past one batch: nothing behind the refused row waits
    const bus = new CountingBus();
    bus.refused.add('test.refused');
    const relay = new OutboxRelay(dataSource, 'producer', bus);
    await relay.drain();
    await relay.drain();
    // Published once or more (a failed batch is published again row by row); in order, without it.
    const order = [...new Set(bus.published.map((event) => event.id))];
    expect(order).toEqual([...before, ...after]);
    await expect(relay.backlog()).resolves.toBe(0);
    const rows: { id: string; set_aside_reason: string; published_at: Date | null }[] =
      await dataSource.query(
        `SELECT id, set_aside_reason, published_at FROM producer.outbox WHERE set_aside_at IS NOT NULL`,
      );
    expect(rows).toEqual([
      {
        id: refused.id,
        set_aside_reason: 'Permissions Violation for Publish to "ca.events.p00.test.refused"',
        published_at: null,
      },
    ]);
  }, 30_000);

  it('takes over the rows of a relay that died holding them once its claim lapses', async () => {
    const ids = await record(5);
    // A relay that claimed the head and died before publishing (claim of 1 s).
    await dataSource.query(
      `UPDATE producer.outbox SET claimed_by = '00000000-0000-4000-8000-0000000000ff',
         claimed_until = now() + interval '1 second'`,
    );
    const bus = new CountingBus();
    const relay = new OutboxRelay(dataSource, 'producer', bus);
    await expect(relay.drain()).resolves.toBe(0);
    await sleep(1_100);
    await expect(relay.drain()).resolves.toBe(5);
    expect(bus.published.map((event) => event.id)).toEqual(ids);
  }, 30_000);
});
