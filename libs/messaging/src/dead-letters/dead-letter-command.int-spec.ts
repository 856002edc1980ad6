import { randomUUID } from 'node:crypto';
import { EventEnvelope } from '@ca/contracts';
import { TestDatabase, createTestDatabase } from '@ca/persistence/testing';
import { DataSource } from 'typeorm';
import { routeByType } from '../events/event-bus';
import { runDeadLetterCommand } from './dead-letter-command';
import { DeadLetterReplayer } from './dead-letter-replayer';
import { DeadLetterStore } from './dead-letters';
import { insertEvents, newEvent } from '../outbox/outbox';
import { outboxSetAsideSql, outboxTableSql, outboxTraceContextSql } from '../outbox/outbox.sql';

/** `npm run ops -- events dead-letters …` on a database, and the consumer's side of a replay. */
describe('events dead-letters command', () => {
  let db: TestDatabase;
  let dataSource: DataSource;
  let store: DeadLetterStore;

  beforeAll(async () => {
    db = await createTestDatabase(process.env.DATABASE_URL ? 'postgres' : 'embedded');
    dataSource = await new DataSource({ type: 'postgres', url: db.url }).initialize();
    await dataSource.query('CREATE SCHEMA ocsp');
    store = await new DeadLetterStore(dataSource, 'ocsp').ensure();
  }, 60_000);

  afterAll(async () => {
    await dataSource?.destroy();
    await db?.drop();
  });

  it('replicas starting together all create the table (no duplicate-type race)', async () => {
    await dataSource.query('CREATE SCHEMA replicas_race');
    const replicas = await Promise.all(
      Array.from({ length: 4 }, async () => {
        const own = await new DataSource({ type: 'postgres', url: db.url, poolSize: 1 }).initialize();
        try {
          await new DeadLetterStore(own, 'replicas_race').ensure();
          return 'started';
        } catch (error) {
          return (error as Error).message;
        } finally {
          await own.destroy();
        }
      }),
    );
    expect(replicas).toEqual(['started', 'started', 'started', 'started']);
  });

  const run = async (...args: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runDeadLetterCommand(args, dataSource, {
      out: (line) => void out.push(line),
      err: (line) => void err.push(line),
    });
    return { code, out, err };
  };

  const poison = async (): Promise<EventEnvelope> => {
    const tenantId = randomUUID();
    const event = {
      id: randomUUID(),
      type: 'crl.published',
      tenantId,
      occurredAt: new Date().toISOString(),
      payload: { tenantId },
    };
    await store.record({
      consumer: 'ocsp-responder',
      event,
      reason: 'failed',
      detail: 'blob missing',
      attempts: 5,
    });
    return event;
  };
  const idOf = async (event: EventEnvelope) => {
    const { out } = await run('dead-letters', 'list');
    const line = out
      .map((l) => JSON.parse(l) as { id: string; eventId: string })
      .find((l) => l.eventId === event.id);
    return line?.id;
  };

  it('lists each set-aside event with its consumer, reason, attempts and first/last seen', async () => {
    const event = await poison();
    const { code, out } = await run('dead-letters', 'list');
    expect(code).toBe(0);
    const line = out.map((l) => JSON.parse(l)).find((l) => l.eventId === event.id);
    expect(line).toMatchObject({
      id: expect.stringMatching(/^ocsp:[0-9]+$/),
      consumer: 'ocsp-responder',
      type: 'crl.published',
      tenantId: event.tenantId,
      reason: 'failed',
      detail: 'blob missing',
      attempts: 5,
    });
    expect(Date.parse(line.firstSeen)).not.toBeNaN();
    expect(Date.parse(line.lastSeen)).not.toBeNaN();
  });

  it('replays an event through its consumer, which removes it once applied', async () => {
    const event = await poison();
    const id = (await idOf(event))!;
    const { code, out } = await run('dead-letters', 'replay', id);
    expect([code, out[0]]).toEqual([0, expect.stringContaining(`replay of ${id} requested`)]);
    const applied: string[] = [];
    const replayer = new DeadLetterReplayer(
      store,
      'ocsp-responder',
      routeByType({ 'crl.published': async (events) => void applied.push(...events.map((e) => e.id)) }),
    );
    expect(await replayer.runOnce()).toBe(1);
    expect(applied).toEqual([event.id]);
    expect(await idOf(event)).toBeUndefined();
  });

  it('keeps a replay that fails again, with one more attempt and the new reason', async () => {
    const event = await poison();
    const id = (await idOf(event))!;
    await run('dead-letters', 'replay', id);
    const replayer = new DeadLetterReplayer(
      store,
      'ocsp-responder',
      routeByType({
        'crl.published': async () => {
          throw new Error('still missing');
        },
      }),
    );
    expect(await replayer.runOnce()).toBe(0);
    const letter = await store.get(id.split(':')[1]);
    expect(letter).toMatchObject({ attempts: 6, detail: 'still missing' });
    expect(await replayer.runOnce()).toBe(0); // not asked for again: left alone
  });

  it('drops one for good, and says so when there is none', async () => {
    const event = await poison();
    const id = (await idOf(event))!;
    expect(await run('dead-letters', 'drop', id)).toMatchObject({ code: 0, out: [`dropped ${id}`] });
    expect(await idOf(event)).toBeUndefined();
    expect(await run('dead-letters', 'drop', id)).toMatchObject({
      code: 1,
      err: [`ops: no dead letter ${id}`],
    });
    expect((await run('dead-letters', 'replay', 'revocation:1')).code).toBe(1); // no table there
  });

  it('refuses bad arguments with the usage (exit 2)', async () => {
    for (const args of [
      ['dead-letters'],
      ['dead-letters', 'purge'],
      ['dead-letters', 'drop'],
      ['dead-letters', 'drop', 'x'],
    ])
      expect((await run(...args)).code).toBe(2);
    expect((await run('dead-letters', 'drop', 'gateway:1')).code).toBe(2);
    expect((await run('dead-letters', 'help')).code).toBe(0);
  });

  it('lists the outbox rows the bus refused and replays one: the relay publishes it on its next pass', async () => {
    await dataSource.query('CREATE SCHEMA revocation');
    for (const sql of [
      ...outboxTableSql('revocation'),
      outboxTraceContextSql('revocation'),
      outboxSetAsideSql('revocation'),
    ])
      await dataSource.query(sql);
    const tenantId = randomUUID();
    const event = newEvent('crl.published', { tenantId });
    await dataSource.transaction((manager) => insertEvents(manager, 'revocation', [event]));
    await dataSource.query(
      `UPDATE revocation.outbox SET set_aside_at = now(), set_aside_reason = 'Permissions Violation'`,
    );
    const listed = await run('outbox', 'list');
    expect(listed.code).toBe(0);
    const [row] = listed.out.map(
      (line) => JSON.parse(line) as { id: string; eventId: string; reason: string },
    );
    expect([listed.out.length, row.eventId, row.reason]).toEqual([1, event.id, 'Permissions Violation']);
    await expect(run('outbox', 'replay', row.id)).resolves.toMatchObject({ code: 0 });
    await expect(run('outbox', 'replay', row.id)).resolves.toMatchObject({ code: 1 });
    await expect(run('outbox', 'list')).resolves.toMatchObject({ code: 0, out: [] });
    const pending: { count: string }[] = await dataSource.query(
      `SELECT count(*) FROM revocation.outbox WHERE published_at IS NULL AND set_aside_at IS NULL`,
    );
    expect(pending[0].count).toBe('1');
  });
});
