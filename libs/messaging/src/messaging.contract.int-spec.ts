import { randomUUID } from 'node:crypto';
import { Controller, INestMicroservice, Module } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { NestFactory } from '@nestjs/core';
import { CaError, ErrorCode, EventEnvelope } from '@ca/contracts';
import { TestDatabase, createTestDatabase } from '@ca/persistence/testing';
import { DataSource } from 'typeorm';
import { AckPolicy, DeliverPolicy, JSONCodec, connect } from 'nats';
import {
  EventBus,
  InProcessEventBus,
  JetStreamEventBus,
  Messaging,
  RpcReplyInterceptor,
  applyOnce,
  applyOnceEach,
  DeadLetterReplayer,
  DeadLetterStore,
  WaitingForDependency,
  each,
  inboxTableSql,
  outboxTableSql,
  outboxTraceContextSql,
  OutboxRelay,
  partitionOf,
  recordEvent,
  routeByType,
  routeValidated,
} from './index';
import { TestMessaging, createTestMessaging, transportKinds } from './testing';

/**
 * The messaging contract, run unchanged on NATS (when NATS_URL is set) and on the in-process
 * transport: what every service relies on, whichever mode it runs in.
 */
type TestApi = {
  'test.echo': [{ text: string }, { echoed: string; at: string }];
  'test.not-found': [Record<string, never>, never];
  'test.crash': [Record<string, never>, never];
  'test.slow': [{ ms: number }, string];
  'test.nobody': [Record<string, never>, never];
  'test.large': [{ items: number }, { items: string[] }];
};

@Controller()
class TestController {
  @MessagePattern('test.echo')
  echo(@Payload() body: { text: string }) {
    return { echoed: body.text, at: new Date(0) };
  }

  @MessagePattern('test.not-found')
  notFound(): never {
    throw CaError.notFound('No such thing.');
  }

  @MessagePattern('test.crash')
  crash(): never {
    throw new Error('secret internal detail');
  }

  @MessagePattern('test.large')
  large(@Payload() body: { items: number }) {
    return { items: Array.from({ length: body.items }, (_, i) => `item-${i}-${'x'.repeat(40)}`) };
  }

  @MessagePattern('test.slow')
  async slow(@Payload() body: { ms: number }) {
    await new Promise((r) => setTimeout(r, body.ms));
    return 'late';
  }
}

@Module({ controllers: [TestController] })
class TestModule {}

const kinds = transportKinds();
if (!process.env.NATS_URL) console.warn('messaging contract: NATS_URL not set, NATS transport skipped');

describe.each(kinds)('messaging contract on %s', (kind) => {
  let db: TestDatabase;
  let testMessaging: TestMessaging;
  let messaging: Messaging;
  let server: INestMicroservice;
  let dataSource: DataSource;

  beforeAll(async () => {
    db = await createTestDatabase(process.env.DATABASE_URL && kind === 'nats' ? 'postgres' : 'embedded');
    testMessaging = createTestMessaging(kind, db.url);
    messaging = await testMessaging.open('contract-test');
    server = await NestFactory.createMicroservice(TestModule, {
      ...messaging.serverOptions('test'),
      logger: false,
    });
    server.useGlobalInterceptors(new RpcReplyInterceptor(messaging.blobs));
    await server.listen();
    dataSource = new DataSource({ type: 'postgres', url: db.url });
    await dataSource.initialize();
    await dataSource.query('CREATE SCHEMA producer');
    await dataSource.query('CREATE SCHEMA consumer');
    for (const sql of [
      ...outboxTableSql('producer'),
      outboxTraceContextSql('producer'),
      ...inboxTableSql('consumer'),
    ])
      await dataSource.query(sql);
    await dataSource.query('CREATE TABLE consumer.applied (n serial primary key, event_id uuid not null)');
  }, 60_000);

  afterAll(async () => {
    await server?.close();
    await messaging?.close();
    await dataSource?.destroy();
    await testMessaging?.cleanup();
    await db?.drop();
  }, 60_000);

  describe('request/reply', () => {
    it('answers with the handler value, copied as JSON (dates become strings)', async () => {
      const client = messaging.rpcClient<TestApi>();
      await expect(client.send('test.echo', { text: 'hi' })).resolves.toEqual({
        echoed: 'hi',
        at: '1970-01-01T00:00:00.000Z',
      });
      await client.close();
    });

    it('carries a CaError as the same typed error', async () => {
      const client = messaging.rpcClient<TestApi>();
      const error = await client.send('test.not-found', {}).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CaError);
      expect(error).toMatchObject({ code: ErrorCode.NotFound, message: 'No such thing.' });
      await client.close();
    });

    it('turns an unexpected failure into INTERNAL_ERROR without leaking its message', async () => {
      const client = messaging.rpcClient<TestApi>();
      const error = (await client.send('test.crash', {}).catch((e: unknown) => e)) as CaError;
      expect(error.code).toBe(ErrorCode.Internal);
      expect(error.message).not.toContain('secret');
      await client.close();
    });

    it('carries an answer far above the 1 MB message limit (through the blob store)', async () => {
      const client = messaging.rpcClient<TestApi>();
      const answer = await client.send('test.large', { items: 60_000 });
      expect(answer.items).toHaveLength(60_000);
      expect(answer.items[59_999]).toBe(`item-59999-${'x'.repeat(40)}`);
      await client.close();
    }, 30_000);

    it('times out with SERVICE_UNAVAILABLE when the answer is late', async () => {
      const client = messaging.rpcClient<TestApi>();
      const started = Date.now();
      const error = (await client.send('test.slow', { ms: 7_000 }).catch((e: unknown) => e)) as CaError;
      expect(error.code).toBe(ErrorCode.ServiceUnavailable);
      expect(Date.now() - started).toBeLessThan(6_900);
      await client.close();
    }, 15_000);

    it('answers a request in flight when its server stops, and the stop waits for that answer only', async () => {
      // A server of its own (its own names), so the suite's server keeps serving the other tests.
      const own = createTestMessaging(kind, db.url);
      const ownMessaging = await own.open('contract-close');
      const ownServer = await NestFactory.createMicroservice(TestModule, {
        ...ownMessaging.serverOptions('test'),
        logger: false,
      });
      ownServer.useGlobalInterceptors(new RpcReplyInterceptor(ownMessaging.blobs));
      await ownServer.listen();
      const client = ownMessaging.rpcClient<TestApi>();
      try {
        const answer = client.send('test.slow', { ms: 600 });
        await new Promise((resolve) => setTimeout(resolve, 150));
        const stopping = Date.now();
        await ownServer.close();
        const stopMs = Date.now() - stopping;
        await expect(answer).resolves.toBe('late');
        // Over NATS the stop waits for the answer before the connection goes; in process the answer
        // needs no connection, so the stop need not wait.
        if (kind === 'nats') expect(stopMs).toBeGreaterThanOrEqual(300);
        // Not a fixed grace period (2 s) whatever is in flight.
        expect(stopMs).toBeLessThan(1_500);
        const idle = await NestFactory.createMicroservice(TestModule, {
          ...ownMessaging.serverOptions('test'),
          logger: false,
        });
        await idle.listen();
        const idleStopping = Date.now();
        await idle.close();
        expect(Date.now() - idleStopping).toBeLessThan(500);
      } finally {
        await client.close();
        await ownMessaging.close();
        await own.cleanup();
      }
    }, 20_000);

    it('reports SERVICE_UNAVAILABLE when nobody serves the pattern', async () => {
      const client = messaging.rpcClient<TestApi>();
      const error = (await client.send('test.nobody', {}).catch((e: unknown) => e)) as CaError;
      expect(error.code).toBe(ErrorCode.ServiceUnavailable);
      await client.close();
    }, 15_000);
  });

  describe('blobs beside a request', () => {
    it('hands over a payload far above the 1 MB message limit, byte for byte', async () => {
      const bytes = new Uint8Array(3 * 1024 * 1024).map((_, i) => (i * 31) % 251);
      const ref = await messaging.blobs.put(bytes);
      // Read by another connection, as the consuming service would (and after a restart).
      const other = await testMessaging.open('blob-reader');
      const received = await other.blobs.get(ref);
      await other.close();
      const same = (other?: Uint8Array) =>
        other !== undefined && Buffer.from(other).equals(Buffer.from(bytes));
      expect(same(received)).toBe(true);
      expect(same(await messaging.blobs.get(ref))).toBe(true);
      await messaging.blobs.delete(ref);
      expect(await messaging.blobs.get(ref)).toBeUndefined();
    }, 30_000);

    it('answers undefined for an unknown reference', async () => {
      expect(await messaging.blobs.get('no-such-blob')).toBeUndefined();
    });
  });

  describe('durable events', () => {
    const consume = (durable: string, seen: EventEnvelope[]) =>
      messaging.events.subscribe(durable, async (event) => {
        await applyOnce(dataSource, 'consumer', event, async (m) => {
          await m.query('INSERT INTO consumer.applied (event_id) VALUES ($1)', [event.id]);
        });
        seen.push(event);
      });

    const waitFor = async (check: () => boolean | Promise<boolean>, ms = 10_000) => {
      const until = Date.now() + ms;
      while (!(await check())) {
        if (Date.now() > until) throw new Error('condition not met in time');
        await new Promise((r) => setTimeout(r, 50));
      }
    };

    it('delivers an event recorded while the consumer was down once it comes back', async () => {
      const tenantId = randomUUID();
      const event = await dataSource.transaction((m) =>
        recordEvent(m, 'producer', 'thing.happened', { tenantId, n: 1 }),
      );
      const relay = new OutboxRelay(dataSource, 'producer', messaging.events, { pollMs: 100 });
      await relay.drain();

      const seen: EventEnvelope[] = [];
      const subscription = await consume('late-consumer', seen);
      await waitFor(() => seen.some((e) => e.id === event.id));
      await subscription.stop();
      expect(seen.find((e) => e.id === event.id)).toMatchObject({
        type: 'thing.happened',
        tenantId,
        payload: { n: 1 },
      });
    }, 20_000);

    it('resumes after a restart of the consumer (and of the connection) without losing or repeating', async () => {
      const seen: EventEnvelope[] = [];
      let subscription = await consume('restarting-consumer', seen);
      const first = await publishNew(messaging, 'first');
      await waitFor(() => seen.some((e) => e.id === first.id));
      await subscription.stop();

      const second = await publishNew(messaging, 'second');
      const reopened = await testMessaging.open('contract-test-restarted');
      subscription = await reopened.events.subscribe('restarting-consumer', async (e) => void seen.push(e));
      await waitFor(() => seen.some((e) => e.id === second.id));
      await subscription.stop();
      await reopened.close();
      expect(seen.filter((e) => e.id === first.id)).toHaveLength(1);
    }, 20_000);

    it('applies a duplicate delivery once', async () => {
      const event = await publishNew(messaging, 'dup');
      const seen: EventEnvelope[] = [];
      const subscription = await consume('dup-consumer', seen);
      await waitFor(() => seen.some((e) => e.id === event.id));
      await subscription.stop();

      // The same event again, as a redelivery after a lost acknowledgement would bring it.
      const again = await applyOnce(dataSource, 'consumer', event, async (m) => {
        await m.query('INSERT INTO consumer.applied (event_id) VALUES ($1)', [event.id]);
      });
      expect(again).toBe(false);
      const rows = await dataSource.query(
        'SELECT count(*)::int AS n FROM consumer.applied WHERE event_id = $1',
        [event.id],
      );
      expect(rows[0].n).toBe(1);
    }, 20_000);

    it('redelivers an event whose handler failed, before any later event', async () => {
      const first = await publishNew(messaging, 'fails-once');
      const second = await publishNew(messaging, 'after');
      const order: string[] = [];
      let failures = 0;
      const subscription = await messaging.events.subscribe('retrying-consumer', async (e) => {
        if (e.id === first.id && failures++ === 0) throw new Error('transient');
        order.push(e.id);
      });
      await waitFor(() => order.includes(second.id));
      await subscription.stop();
      expect(order.indexOf(first.id)).toBeLessThan(order.indexOf(second.id));
      expect(failures).toBe(2);
    }, 20_000);

    it('appends a batch in its order, and a batch published again after a failure adds only what is new', async () => {
      const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((label) => newEvent(label));
      await messaging.events.publishBatch([a, b, c]);
      await messaging.events.publishBatch([b, c, d]); // as the relay republishes an unmarked batch
      const seen: string[] = [];
      const subscription = await messaging.events.subscribe('batch-consumer', async (e) => {
        if ([a, b, c, d].some((x) => x.id === e.id)) seen.push(e.id);
      });
      await waitFor(() => seen.length >= 4);
      await new Promise((r) => setTimeout(r, 200)); // a duplicate would come right after
      await subscription.stop();
      expect(seen).toEqual([a.id, b.id, c.id, d.id]);
    }, 20_000);

    // The embedded database runs one statement at a time: a bus that owns it appends a batch with
    // its INSERT alone, no transaction and no table lock.
    (kind === 'nats' ? it.skip : it)(
      'appends batches published at once on a database it owns each whole, in its order, every event once',
      async () => {
        const own = await InProcessEventBus.open(db.url, { ownDatabase: true });
        const tenantId = randomUUID();
        const batches = Array.from({ length: 12 }, (_, b) =>
          Array.from({ length: 8 }, (_, i) => newEvent(`${b}.${i}`, tenantId)),
        );
        await Promise.all(batches.map((batch) => own.publishBatch(batch)));
        const ours = new Set(batches.flat().map((e) => e.id));
        const seen: string[] = [];
        const subscription = await own.subscribe('own-database-consumer', async (e) => {
          if (ours.has(e.id)) seen.push((e.payload as { label: string }).label);
        });
        await waitFor(() => seen.length >= ours.size);
        await new Promise((r) => setTimeout(r, 200)); // a duplicate would come right after
        await subscription.stop();
        await own.close();
        expect(seen).toHaveLength(ours.size);
        // Each batch whole (its events next to each other) and in its order.
        const byBatch = new Map<string, string[]>();
        for (const label of seen)
          byBatch.set(label.split('.')[0], [...(byBatch.get(label.split('.')[0]) ?? []), label]);
        for (const [b, labels] of byBatch)
          expect(labels).toEqual(Array.from({ length: 8 }, (_, i) => `${b}.${i}`));
        const firstOf = [...byBatch.keys()].map((b) => seen.indexOf(`${b}.0`));
        for (const start of firstOf)
          expect(
            seen.slice(start, start + 8).every((l) => l.startsWith(seen[start].split('.')[0] + '.')),
          ).toBe(true);
      },
      20_000,
    );

    it('relays an outbox of several events in one drain, in order, and leaves nothing pending', async () => {
      const tenantId = randomUUID();
      const recorded = await dataSource.transaction(async (m) => [
        await recordEvent(m, 'producer', 'thing.happened', { tenantId, n: 1 }),
        await recordEvent(m, 'producer', 'thing.happened', { tenantId, n: 2 }),
        await recordEvent(m, 'producer', 'thing.happened', { tenantId, n: 3 }),
      ]);
      const relay = new OutboxRelay(dataSource, 'producer', messaging.events, { pollMs: 100 });
      expect(await relay.drain()).toBeGreaterThanOrEqual(3);
      expect(await relay.backlog()).toBe(0);
      const seen: string[] = [];
      const subscription = await messaging.events.subscribe('relayed-batch-consumer', async (e) => {
        if (e.tenantId === tenantId) seen.push(e.id);
      });
      await waitFor(() => seen.length >= 3);
      await subscription.stop();
      expect(seen).toEqual(recorded.map((e) => e.id));
    }, 20_000);

    it('does not deliver again the events handled before one that failed', async () => {
      const [a, b, c] = ['x', 'y', 'z'].map((label) => newEvent(label));
      await messaging.events.publishBatch([a, b, c]);
      const handled: string[] = [];
      let failures = 0;
      const subscription = await messaging.events.subscribe('mid-batch-failure-consumer', async (e) => {
        if (e.id === b.id && failures++ === 0) throw new Error('transient');
        if ([a, b, c].some((x) => x.id === e.id)) handled.push(e.id);
      });
      await waitFor(() => handled.includes(c.id));
      await subscription.stop();
      expect(handled).toEqual([a.id, b.id, c.id]);
    }, 20_000);

    describe('run handlers (routes by type)', () => {
      const ofType = (type: string, label: string): EventEnvelope => ({ ...newEvent(label), type });
      const applyRun = (events: readonly EventEnvelope[]) =>
        applyOnceEach(dataSource, 'consumer', events, async (m, fresh) => {
          for (const e of fresh) await m.query('INSERT INTO consumer.applied (event_id) VALUES ($1)', [e.id]);
        });
      const appliedCount = async (id: string): Promise<number> =>
        (
          await dataSource.query('SELECT count(*)::int AS n FROM consumer.applied WHERE event_id = $1', [id])
        )[0].n;

      it('gets only runs of consecutive events of its type; others stay one by one, in stream order', async () => {
        const [x1, x2] = ['x1', 'x2'].map((l) => ofType('batched.order', l));
        const other = newEvent('between');
        const x3 = ofType('batched.order', 'x3');
        const ours = new Set([x1, x2, other, x3].map((e) => e.id));
        await messaging.events.publishBatch([x1, x2, other, x3]);
        const order: string[] = [];
        const runs: string[][] = [];
        const subscription = await messaging.events.subscribe(
          'batch-order-consumer',
          routeByType({
            'thing.happened': each(async (e) => {
              if (ours.has(e.id)) order.push(e.id);
            }),
            'batched.order': async (events) => {
              runs.push(events.map((e) => e.id));
              order.push(...events.map((e) => e.id));
            },
          }),
        );
        await waitFor(() => order.includes(x3.id));
        await subscription.stop();
        expect(order).toEqual([x1.id, x2.id, other.id, x3.id]);
        // A run never spans an event of another type (JetStream hands runs of one).
        expect(runs.flat()).toEqual([x1.id, x2.id, x3.id]);
        expect(runs.some((run) => run.includes(x2.id) && run.includes(x3.id))).toBe(false);
        if (kind === 'in-process') expect(runs).toEqual([[x1.id, x2.id], [x3.id]]);
      }, 20_000);

      it('redelivers a failed run from its first event, before any later event, applying each once', async () => {
        const run = ['r1', 'r2', 'r3'].map((l) => ofType('batched.retry', l));
        const after = newEvent('after-run');
        await messaging.events.publishBatch([...run, after]);
        const order: string[] = [];
        let failures = 0;
        const subscription = await messaging.events.subscribe(
          'batch-retry-consumer',
          routeByType({
            'thing.happened': each(async (e) => {
              if (e.id === after.id) order.push(e.id);
            }),
            'batched.retry': async (events) => {
              await applyOnceEach(dataSource, 'consumer', events, async (m, fresh) => {
                for (const e of fresh)
                  await m.query('INSERT INTO consumer.applied (event_id) VALUES ($1)', [e.id]);
                // Fails after writing, once: the transaction is rolled back and the run comes again.
                if (events.some((e) => e.id === run[1].id) && failures++ === 0) throw new Error('transient');
              });
              order.push(...events.map((e) => e.id));
            },
          }),
        );
        await waitFor(() => order.includes(after.id));
        await subscription.stop();
        expect(failures).toBe(2);
        expect(order).toEqual([...run.map((e) => e.id), after.id]);
        for (const e of run) expect(await appliedCount(e.id)).toBe(1);
      }, 20_000);

      it('applies the events of a run already applied (a redelivery) once, and the new ones', async () => {
        const [old, fresh] = ['old', 'new'].map((l) => ofType('batched.dedup', l));
        await applyRun([old]); // applied before, its acknowledgement lost
        await messaging.events.publishBatch([old, fresh]);
        const applied: string[] = [];
        const subscription = await messaging.events.subscribe(
          'batch-dedup-consumer',
          routeByType({
            'batched.dedup': async (events) => {
              applied.push(...(await applyRun(events)).map((e) => e.id));
            },
          }),
        );
        await waitFor(() => applied.includes(fresh.id));
        await subscription.stop();
        expect(applied).toEqual([fresh.id]);
        expect(await appliedCount(old.id)).toBe(1);
        expect(await appliedCount(fresh.id)).toBe(1);
        // Within one run, an id given twice is applied once.
        const twice = ofType('batched.dedup', 'twice');
        expect((await applyRun([twice, twice])).map((e) => e.id)).toEqual([twice.id]);
        expect(await appliedCount(twice.id)).toBe(1);
      }, 20_000);
    });

    describe('partitions: order per tenant, tenants in parallel', () => {
      it('delivers every tenant its events in publish order, interleaved, to two replicas of a consumer', async () => {
        // Tenants of the first half of the partitions and of the second half: replica 1 takes the
        // first half's events and holds them until replica 2 has handled one of the second half's,
        // so both replicas work at once whichever of them polls first.
        const tenantsIn = (low: boolean) => {
          const found: string[] = [];
          while (found.length < 20) {
            const tenant = randomUUID();
            if (partitionOf(tenant) < 8 === low) found.push(tenant);
          }
          return found;
        };
        const [early, late] = [tenantsIn(true), tenantsIn(false)];
        const PER_TENANT = 10;
        // Interleaved: event n of every tenant, then event n + 1 of every tenant.
        const eventsOf = (tenants: string[]) =>
          Array.from({ length: PER_TENANT }, (_, n) =>
            tenants.map((tenant) => newEvent(String(n), tenant)),
          ).flat();
        const [earlyEvents, lateEvents] = [eventsOf(early), eventsOf(late)];
        const publish = async (bus: Messaging, events: EventEnvelope[]) => {
          for (let i = 0; i < events.length; i += 50) await bus.events.publishBatch(events.slice(i, i + 50));
        };
        const ours = new Set([...earlyEvents, ...lateEvents].map((e) => e.id));
        const earlySet = new Set(early);
        const handled = new Map<string, number[]>([...early, ...late].map((t) => [t, []]));
        const inFlight = new Set<string>();
        const overlaps: string[] = [];
        const byReplica = [0, 0];
        let heldByReplica1 = 0;
        let replica2Handled: () => void = () => undefined;
        const replica2Working = new Promise<void>((resolve) => (replica2Handled = resolve));
        let giveUp: NodeJS.Timeout | undefined;
        const heldAtMost = new Promise((resolve) => (giveUp = setTimeout(resolve, 30_000)));
        const handlerOf = (replica: number) => async (e: EventEnvelope) => {
          if (!ours.has(e.id)) return;
          if (inFlight.has(e.tenantId)) overlaps.push(e.tenantId);
          inFlight.add(e.tenantId);
          if (replica === 0 && earlySet.has(e.tenantId)) {
            heldByReplica1++;
            await Promise.race([replica2Working, heldAtMost]);
          }
          await new Promise((r) => setTimeout(r, Math.random() * 3));
          inFlight.delete(e.tenantId);
          handled.get(e.tenantId)?.push(Number((e.payload as { label: string }).label));
          byReplica[replica]++;
          if (replica === 1) replica2Handled();
        };
        await publish(messaging, earlyEvents);
        const subscriptions = [await messaging.events.subscribe('ordered-consumer', handlerOf(0))];
        await waitFor(() => heldByReplica1 > 0);
        const replica2 = await testMessaging.open('contract-test-replica-2');
        subscriptions.push(await replica2.events.subscribe('ordered-consumer', handlerOf(1)));
        await publish(replica2, lateEvents);
        const distinct = () => [...handled.values()].reduce((sum, ns) => sum + new Set(ns).size, 0);
        await waitFor(() => distinct() === ours.size, 60_000).finally(() => clearTimeout(giveUp));
        for (const subscription of subscriptions) await subscription.stop();
        await replica2.close();
        expect(overlaps).toEqual([]);
        const inOrder = Array.from({ length: PER_TENANT }, (_, n) => n);
        // A redelivery (at least once) repeats a run from an event on, never goes back before it.
        for (const [tenant, ns] of handled) expect([tenant, [...new Set(ns)]]).toEqual([tenant, inOrder]);
        // Both replicas took part.
        expect(byReplica.every((n) => n > 0)).toBe(true);
      }, 90_000);

      it('moves a consumer of an earlier version (one position for all) to partitions without losing or repeating', async () => {
        const handledBefore = newEvent('handled-before');
        const [owed1, owed2] = ['owed-1', 'owed-2'].map((label) => newEvent(label));
        const seen: string[] = [];
        if (kind === 'nats') {
          // As an earlier version left it: one consumer on every subject, events on `<prefix>.<type>`.
          const nc = await connect({ servers: process.env.NATS_URL });
          const { streamName, subjectPrefix } = testMessaging.options;
          const jsm = await nc.jetstreamManager();
          await jsm.consumers.add(streamName, {
            durable_name: 'legacy-consumer',
            ack_policy: AckPolicy.Explicit,
            deliver_policy: DeliverPolicy.New, // the events of this test only
            filter_subject: `${subjectPrefix}.>`,
            max_ack_pending: 1,
          });
          const js = nc.jetstream();
          for (const e of [handledBefore, owed1, owed2])
            await js.publish(`${subjectPrefix}.${e.type}`, JSONCodec().encode(e), { msgID: e.id });
          const legacy = await js.consumers.get(streamName, 'legacy-consumer');
          const first = await legacy.next({ expires: 5_000 });
          // Handled and acknowledged by the earlier version: not to be delivered again.
          expect(first && JSONCodec<EventEnvelope>().decode(first.data).id).toBe(handledBefore.id);
          await first?.ackAck();
          await nc.close();
        } else {
          await messaging.events.publishBatch([handledBefore, owed1, owed2]);
          const pool = (messaging.events as InProcessEventBus).pool;
          const { rows } = await pool.query<{ seq: string }>(
            'SELECT seq FROM messaging.stream WHERE id = $1',
            [handledBefore.id],
          );
          await pool.query(
            `INSERT INTO messaging.consumers (durable_name, last_seq) VALUES ('legacy-consumer', $1)`,
            [rows[0].seq],
          );
        }
        const ours = new Set([handledBefore, owed1, owed2].map((e) => e.id));
        const subscription = await messaging.events.subscribe('legacy-consumer', async (e) => {
          if (ours.has(e.id)) seen.push(e.id);
        });
        await waitFor(() => seen.length >= 2);
        const later = newEvent('later');
        ours.add(later.id);
        await messaging.events.publish(later);
        await waitFor(() => seen.includes(later.id));
        await new Promise((r) => setTimeout(r, 300)); // a repeat would come right after
        await subscription.stop();
        expect(seen).toEqual([owed1.id, owed2.id, later.id]);
      }, 30_000);

      it('keeps handling other tenants while a handler for one tenant is blocked', async () => {
        const blocked = randomUUID();
        let other = randomUUID();
        while (partitionOf(other) === partitionOf(blocked)) other = randomUUID();
        const stuck = newEvent('stuck', blocked);
        const behind = newEvent('behind', blocked);
        const free = newEvent('free', other);
        await messaging.events.publishBatch([stuck, behind, free]);
        let release = () => undefined as void;
        const released = new Promise<void>((r) => (release = r));
        const handled: string[] = [];
        const subscription = await messaging.events.subscribe('parallel-consumer', async (e) => {
          if (e.id === stuck.id) await released;
          if ([stuck.id, behind.id, free.id].includes(e.id)) handled.push(e.id);
        });
        await waitFor(() => handled.includes(free.id));
        // The blocked tenant's next event waits for the blocked one.
        expect(handled).toEqual([free.id]);
        release();
        await waitFor(() => handled.includes(behind.id));
        await subscription.stop();
        expect(handled).toEqual([free.id, stuck.id, behind.id]);
      }, 30_000);
    });

    describe('dead letters', () => {
      it('sets a poison event aside after its attempts, with the reason, and moves on to the next of its tenant', async () => {
        const deadLetters = await new DeadLetterStore(dataSource, 'consumer').ensure();
        const poison = newEvent('poison');
        const next = newEvent('next');
        await messaging.events.publishBatch([poison, next]);
        const handled: string[] = [];
        let attempts = 0;
        const subscription = await messaging.events.subscribe(
          'poisoned-consumer',
          async (e) => {
            if (e.id === poison.id) {
              attempts++;
              throw new Error('cannot apply this one');
            }
            if (e.id === next.id) handled.push(e.id);
          },
          { deadLetters, maxAttempts: 3 },
        );
        await waitFor(() => handled.includes(next.id), 20_000);
        await subscription.stop();
        expect(attempts).toBe(3);
        const letters = (await deadLetters.list()).filter((l) => l.eventId === poison.id);
        expect(letters).toMatchObject([
          { consumer: 'poisoned-consumer', reason: 'failed', detail: 'cannot apply this one', attempts: 3 },
        ]);
        expect(letters[0].event).toEqual(poison);
        expect(letters[0].lastSeen.getTime()).toBeGreaterThanOrEqual(letters[0].firstSeen.getTime());
        expect(await deadLetters.drop(letters[0].id)).toBe(true);
        expect(await deadLetters.get(letters[0].id)).toBeUndefined();
      }, 40_000);

      it('lets an event that came before the one it depends on wait, then applies it once that one arrives', async () => {
        const deadLetters = await new DeadLetterStore(dataSource, 'consumer').ensure();
        const tenantId = randomUUID();
        const caId = randomUUID();
        // The leaf's event first (its CA's was set aside upstream, and is replayed later).
        const leaf = { ...newEvent('leaf', tenantId), type: 'certificate.issued', payload: { caId } };
        await messaging.events.publish(leaf);
        const knownCas = new Set<string>();
        const applied: string[] = [];
        const handler = async (e: EventEnvelope) => {
          if (e.tenantId !== tenantId) return; // the stream's earlier events, of other tests
          const { caId: ca } = e.payload as { caId: string };
          if (e.type === 'ca.initialized') knownCas.add(ca);
          else if (!knownCas.has(ca)) throw new WaitingForDependency(`waiting for CA ${ca}`);
          applied.push(e.id);
        };
        const subscription = await messaging.events.subscribe('waiting-consumer', handler, {
          deadLetters,
          maxAttempts: 2,
        });
        const replays = new DeadLetterReplayer(deadLetters, 'waiting-consumer', handler, 100);
        replays.start();
        try {
          await waitFor(async () => (await deadLetters.list()).some((l) => l.eventId === leaf.id), 20_000);
          const [letter] = (await deadLetters.list()).filter((l) => l.eventId === leaf.id);
          expect(letter).toMatchObject({ reason: 'waiting', attempts: 2, detail: `waiting for CA ${caId}` });
          // Not refused for good: its CA's event arrives, and the leaf is applied after it.
          const ca = { ...newEvent('ca', tenantId), type: 'ca.initialized', payload: { caId } };
          await messaging.events.publish(ca);
          await waitFor(() => applied.includes(leaf.id), 20_000);
          expect(applied).toEqual([ca.id, leaf.id]);
          await waitFor(async () => !(await deadLetters.list()).some((l) => l.eventId === leaf.id));
        } finally {
          await replays.stop();
          await subscription.stop();
        }
      }, 60_000);

      it('sets an event whose payload does not parse aside at once, naming the field', async () => {
        const deadLetters = await new DeadLetterStore(dataSource, 'consumer').ensure();
        const malformed: EventEnvelope = {
          ...newEvent('malformed'),
          type: 'tenant.updated',
          payload: { tenantId: SUITE_TENANT, status: 'deleted' },
        };
        const after = newEvent('after-malformed');
        await messaging.events.publishBatch([malformed, after]);
        const applied: string[] = [];
        const subscription = await messaging.events.subscribe(
          'validating-consumer',
          routeValidated(
            'validating-consumer',
            { 'tenant.updated': each(async (e) => void applied.push(e.id)) },
            deadLetters,
          ),
        );
        await waitFor(async () => (await deadLetters.list()).some((l) => l.eventId === malformed.id));
        await subscription.stop();
        expect(applied).toEqual([]);
        const letter = (await deadLetters.list()).find((l) => l.eventId === malformed.id);
        expect(letter).toMatchObject({ reason: 'invalid', attempts: 1, type: 'tenant.updated' });
        expect(letter?.detail).toMatch('payload.status');
      }, 20_000);
    });

    describe('a consumer that crashes or works long', () => {
      // Shorter than the 5 s default, to keep the suite quick; the consumers below are updated to it.
      const ACK_WAIT_MS = 1_000;

      /** An event bus of its own connection, as a service process has, and a way to kill it mid-event. */
      async function openProcessLikeBus(): Promise<{ bus: EventBus; crash: () => Promise<void> }> {
        if (kind === 'nats') {
          const nc = await connect({ servers: process.env.NATS_URL });
          const bus = await JetStreamEventBus.connect(nc, {
            ...testMessaging.options,
            ackWaitMs: ACK_WAIT_MS,
          });
          return { bus, crash: () => nc.close() }; // no ack, no unsubscribe: the process is gone
        }
        // Its claim on the partition lapses after the lease, as a JetStream ack wait does.
        const bus = await InProcessEventBus.open(db.url, { leaseMs: ACK_WAIT_MS, pollMs: 200 });
        return { bus, crash: () => bus.pool.end() }; // its position is never written
      }

      it('redelivers the event a consumer died on to its restart within about the ack wait', async () => {
        // Created with the default ack wait, as consumers of an earlier version were with 30 s.
        await (await messaging.events.subscribe('crashing-consumer', async () => undefined)).stop();
        const event = await publishNew(messaging, 'in-flight');
        const dying = await openProcessLikeBus();
        let release = () => undefined as void;
        let received = false;
        const dead = await dying.bus.subscribe('crashing-consumer', async (e) => {
          if (e.id !== event.id) return;
          received = true;
          await new Promise<void>((r) => (release = r)); // never finishes before the crash
        });
        await waitFor(() => received);
        await dying.crash();
        const crashedAt = Date.now();

        const restarted = await openProcessLikeBus();
        const seen: string[] = [];
        const subscription = await restarted.bus.subscribe(
          'crashing-consumer',
          async (e) => void seen.push(e.id),
        );
        await waitFor(() => seen.includes(event.id), 10_000);
        const delayMs = Date.now() - crashedAt;
        await subscription.stop();
        await restarted.crash();
        release();
        await dead.stop();
        // Far below the former 30 s and the 5 s default: the consumer took the test's ack wait.
        expect(delayMs).toBeLessThan(ACK_WAIT_MS + 2_500);
      }, 30_000);

      (kind === 'nats' ? it.skip : it)(
        'redelivers at once, on a database the process has alone, the event it died on in an earlier run',
        async () => {
          const event = await publishNew(messaging, 'in-flight-alone');
          // An earlier run's claim, as long as the default: it would hold the partition 5 s.
          const dying = await InProcessEventBus.open(db.url);
          let received = false;
          let release = () => undefined as void;
          const dead = await dying.subscribe('sole-process-consumer', async (e) => {
            if (e.id !== event.id) return;
            received = true;
            await new Promise<void>((r) => (release = r)); // never finishes before the crash
          });
          await waitFor(() => received);
          await dying.pool.end();
          const crashedAt = Date.now();

          const restarted = await InProcessEventBus.open(db.url, { ownDatabase: true });
          const seen: string[] = [];
          const subscription = await restarted.subscribe(
            'sole-process-consumer',
            async (e) => void seen.push(e.id),
          );
          await waitFor(() => seen.includes(event.id), 10_000);
          const delayMs = Date.now() - crashedAt;
          await subscription.stop();
          await restarted.close();
          release();
          await dead.stop();
          expect(delayMs).toBeLessThan(2_000);
        },
        30_000,
      );

      it('does not redeliver an event while its handler works longer than the ack wait', async () => {
        const event = await publishNew(messaging, 'slow');
        const own = await openProcessLikeBus();
        let deliveries = 0;
        let finished = false;
        const subscription = await own.bus.subscribe('slow-consumer', async (e) => {
          if (e.id !== event.id) return;
          deliveries++;
          await new Promise((r) => setTimeout(r, ACK_WAIT_MS * 2.5));
          finished = true;
        });
        await waitFor(() => finished, 15_000);
        await new Promise((r) => setTimeout(r, ACK_WAIT_MS)); // a redelivery would be handled by now
        await subscription.stop();
        await own.crash();
        expect(deliveries).toBe(1);
      }, 30_000);

      it('hands an event published while its partition is busy over right after, not at the next poll', async () => {
        // A poll of a minute: only the wake-up on publication can deliver within the test's time.
        const bus =
          kind === 'nats' ? messaging.events : await InProcessEventBus.open(db.url, { pollMs: 60_000 });
        const first = newEvent('busy-first');
        const second = newEvent('busy-second');
        const seen: string[] = [];
        let release = () => undefined as void;
        let busy = false;
        const subscription = await bus.subscribe('busy-partition-consumer', async (e) => {
          if (e.id === first.id) {
            busy = true;
            await new Promise<void>((r) => (release = r));
          }
          if (e.id === first.id || e.id === second.id) seen.push(e.id); // not the suite's other events
        });
        await bus.publish(first);
        await waitFor(() => busy, 5_000);
        await bus.publish(second); // same tenant, same partition: queued behind the first
        await new Promise((r) => setTimeout(r, 200));
        release();
        await waitFor(() => seen.includes(second.id), 5_000);
        await subscription.stop();
        if (bus !== messaging.events) await bus.close();
        expect(seen).toEqual([first.id, second.id]);
      }, 30_000);
    });
  });
});

/** The suite's events belong to one tenant unless a test names another: their order is kept. */
const SUITE_TENANT: string = randomUUID();

function newEvent(label: string, tenantId: string = SUITE_TENANT): EventEnvelope {
  return {
    id: randomUUID(),
    type: 'thing.happened',
    tenantId,
    occurredAt: new Date().toISOString(),
    payload: { label },
  };
}

async function publishNew(messaging: Messaging, label: string): Promise<EventEnvelope> {
  const event = newEvent(label);
  await messaging.events.publish(event);
  return event;
}
