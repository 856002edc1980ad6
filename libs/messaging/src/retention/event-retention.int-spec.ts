import { randomBytes, randomUUID } from 'node:crypto';
import { TestDatabase, createTestDatabase, databaseKinds } from '@ca/persistence/testing';
import { connect, nanos } from 'nats';
import { DataSource } from 'typeorm';
import { InProcessEventBus } from '../events/in-process.event-bus';
import { JetStreamEventBus } from '../events/jetstream.event-bus';
import { newEvent } from '../outbox/outbox';
import { inboxTableSql, outboxClaimSql, outboxTableSql, outboxTraceContextSql } from '../outbox/outbox.sql';
import { DAY_MS, EventRetention } from './event-retention';

const TENANT = '00000000-0000-4000-8000-000000000001';
/** The clock of the housekeeping run under test. */
const NOW = new Date('2030-06-15T12:00:00Z');
const daysBefore = (days: number) => new Date(NOW.getTime() - days * DAY_MS);

describe.each(databaseKinds())('event retention (%s)', (kind) => {
  let db: TestDatabase;
  let dataSource: DataSource;
  let bus: InProcessEventBus;

  beforeAll(async () => {
    db = await createTestDatabase(kind);
    dataSource = new DataSource({ type: 'postgres', url: db.url });
    await dataSource.initialize();
    await dataSource.query('CREATE SCHEMA svc');
    for (const sql of [
      ...outboxTableSql('svc'),
      outboxTraceContextSql('svc'),
      outboxClaimSql('svc'),
      ...inboxTableSql('svc'),
    ])
      await dataSource.query(sql);
    bus = await InProcessEventBus.open(db.url);
  }, 60_000);

  afterAll(async () => {
    await bus?.close();
    await dataSource?.destroy();
    await db?.drop();
  }, 60_000);

  const retention = () =>
    new EventRetention(dataSource, {
      outboxSchema: 'svc',
      inboxSchema: 'svc',
      events: bus,
      retentionMs: 7 * DAY_MS,
      now: () => NOW,
    });

  async function outboxRow(name: string, publishedAt: Date | null, occurredAt: Date): Promise<void> {
    await dataSource.query(
      `INSERT INTO svc.outbox (id, type, tenant_id, payload, occurred_at, published_at) VALUES ($1, 'test.kept', $2, $3, $4, $5)`,
      [randomUUID(), TENANT, JSON.stringify({ name }), occurredAt, publishedAt],
    );
  }

  it('deletes published outbox rows and inbox rows older than the window; keeps newer and unpublished ones', async () => {
    await outboxRow('published 8 days ago', daysBefore(8), daysBefore(8));
    await outboxRow('published 6 days ago', daysBefore(6), daysBefore(8));
    await outboxRow('never published', null, daysBefore(30));
    await dataSource.query(
      `INSERT INTO svc.inbox (event_id, type, applied_at) VALUES ($1, 't', $2), ($3, 't', $4)`,
      [randomUUID(), daysBefore(7.5), randomUUID(), daysBefore(1)],
    );

    const run = await retention().runOnce();

    expect(run).toMatchObject({ outbox: 1, inbox: 1 });
    const names: { name: string }[] = await dataSource.query(
      `SELECT payload->>'name' AS name FROM svc.outbox ORDER BY seq`,
    );
    expect(names.map((row) => row.name)).toEqual(['published 6 days ago', 'never published']);
    const inbox: { applied_at: Date }[] = await dataSource.query('SELECT applied_at FROM svc.inbox');
    expect(inbox.map((row) => row.applied_at.getTime())).toEqual([daysBefore(1).getTime()]);
  });

  it('prunes the in-process stream only behind every durable consumer, and only past the window', async () => {
    const events = Array.from({ length: 4 }, (_, i) => newEvent('test.pruned', { tenantId: TENANT, i }));
    await bus.publishBatch(events);
    const seqs: { seq: string }[] = await bus.pool
      .query<{ seq: string }>('SELECT seq FROM messaging.stream ORDER BY seq')
      .then((result) => result.rows);
    // Events 0 to 2 are old, event 3 is recent. Consumer "fast" has handled everything,
    // "slow" only event 0: events 1 and 2 are still owed to it.
    await bus.pool.query('UPDATE messaging.stream SET stored_at = $1 WHERE seq <= $2', [
      daysBefore(8),
      seqs[2].seq,
    ]);
    await bus.pool.query('UPDATE messaging.stream SET stored_at = $1 WHERE seq = $2', [
      daysBefore(1),
      seqs[3].seq,
    ]);
    // Positions are per partition; here every partition of a consumer is at the same place.
    await bus.pool.query(
      `INSERT INTO messaging.consumer_partitions (durable_name, part, last_seq)
       SELECT c.name, p, c.seq FROM generate_series(0, 15) p,
              (VALUES ('fast', $1::bigint), ('slow', $2::bigint)) AS c(name, seq)`,
      [seqs[3].seq, seqs[0].seq],
    );

    expect((await retention().runOnce()).stream).toBe(1);
    const left: { id: string }[] = (
      await bus.pool.query<{ id: string }>('SELECT id FROM messaging.stream ORDER BY seq')
    ).rows;
    expect(left.map((row) => row.id)).toEqual(events.slice(1).map((event) => event.id));

    // Once "slow" has caught up, the old ones go; the recent one stays.
    await bus.pool.query(
      `UPDATE messaging.consumer_partitions SET last_seq = $1 WHERE durable_name = 'slow'`,
      [seqs[3].seq],
    );
    expect((await retention().runOnce()).stream).toBe(2);
    await expect(bus.pending('slow')).resolves.toBe(0);
    await bus.pool.query(`DELETE FROM messaging.consumer_partitions WHERE durable_name IN ('fast', 'slow')`);
  });
});

const withNats = process.env.NATS_URL ? describe : describe.skip;
if (!process.env.NATS_URL)
  process.stderr.write('event retention: NATS_URL not set, JetStream max_age case skipped\n');

withNats('event retention on JetStream', () => {
  it('sets max_age on a new stream and brings an existing stream to the window', async () => {
    const nc = await connect({ servers: process.env.NATS_URL });
    const streamName = `TEST_RETENTION_${randomBytes(4).toString('hex').toUpperCase()}`;
    const subjectPrefix = `test.${streamName.toLowerCase()}`;
    const jsm = await nc.jetstreamManager();
    // The stream's owner (issuance) sets its settings; a user never changes them.
    const owner = { streamName, subjectPrefix, streamRole: 'owner' as const };
    try {
      await JetStreamEventBus.connect(nc, owner);
      expect((await jsm.streams.info(streamName)).config.max_age).toBe(0); // kept forever, as before
      await JetStreamEventBus.connect(nc, { ...owner, maxAgeMs: 7 * DAY_MS });
      expect((await jsm.streams.info(streamName)).config.max_age).toBe(nanos(7 * DAY_MS));

      await jsm.streams.delete(streamName);
      await JetStreamEventBus.connect(nc, { ...owner, maxAgeMs: 3 * DAY_MS });
      const created = await jsm.streams.info(streamName);
      expect(created.config.max_age).toBe(nanos(3 * DAY_MS));
      expect(created.config.duplicate_window).toBe(nanos(10 * 60_000)); // well inside the window

      // A window in minutes (a benchmark run): the duplicate window shrinks to it, new or existing.
      await JetStreamEventBus.connect(nc, { ...owner, maxAgeMs: 2 * 60_000 });
      const short = await jsm.streams.info(streamName);
      expect([short.config.max_age, short.config.duplicate_window]).toEqual([nanos(120_000), nanos(120_000)]);
      await jsm.streams.delete(streamName);
      await JetStreamEventBus.connect(nc, { ...owner, maxAgeMs: 2 * 60_000 });
      expect((await jsm.streams.info(streamName)).config.duplicate_window).toBe(nanos(120_000));
    } finally {
      await jsm.streams.delete(streamName).catch(() => undefined);
      await nc.close();
    }
  }, 30_000);

  it("restores at its owner's start a stream someone reshaped (max_msgs: 1, other subjects); a user changes nothing", async () => {
    const nc = await connect({ servers: process.env.NATS_URL });
    const streamName = `TEST_RESHAPED_${randomBytes(4).toString('hex').toUpperCase()}`;
    const subjectPrefix = `test.${streamName.toLowerCase()}`;
    const jsm = await nc.jetstreamManager();
    const owner = { streamName, subjectPrefix, streamRole: 'owner' as const, maxAgeMs: 7 * DAY_MS };
    try {
      await JetStreamEventBus.connect(nc, owner);
      const reshape = { max_msgs: 1, subjects: [`${subjectPrefix}.>`, 'rogue.>'], max_age: nanos(DAY_MS) };
      await jsm.streams.update(streamName, reshape);
      await JetStreamEventBus.connect(nc, { streamName, subjectPrefix, maxAgeMs: 7 * DAY_MS });
      expect((await jsm.streams.info(streamName)).config.max_msgs).toBe(1);
      await JetStreamEventBus.connect(nc, owner);
      const restored = (await jsm.streams.info(streamName)).config;
      expect([restored.max_msgs, restored.subjects, restored.max_age]).toEqual([
        -1,
        [`${subjectPrefix}.>`],
        nanos(7 * DAY_MS),
      ]);
    } finally {
      await jsm.streams.delete(streamName).catch(() => undefined);
      await nc.close();
    }
  }, 30_000);
});
