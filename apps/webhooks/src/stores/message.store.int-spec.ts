import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { openSchemaDataSource } from '@ca/persistence';
import { TestDatabase, createTestDatabase, databaseKinds } from '@ca/persistence/testing';
import { DataSource } from 'typeorm';
import { WebhookHousekeeping } from '../housekeeping';
import { WEBHOOKS_MIGRATIONS } from '../migrations';
import { WEBHOOKS_SCHEMA } from '../webhooks.schema';
import { MessageStore } from './message.store';
import { SqlOutgoingMessageStore } from './outgoing-message.store';
import { SqlWebhookRetentionStore } from './webhook-retention.store';

jest.setTimeout(60_000);

const OK = { statusCode: 200, durationMs: 1 };

/**
 * `webhooks.messages` as the queue two replicas share: disjoint claims, order per certificate, the
 * per-subscription limit, a dead replica's claim taken over once it lapses, and deleted webhooks.
 */
describe.each(databaseKinds())('webhook message queue shared by replicas (%s database)', (kind) => {
  let database: TestDatabase;
  let pools: DataSource[];
  let a: MessageStore;
  let b: MessageStore;
  const tenantId = randomUUID();

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    const open = () =>
      openSchemaDataSource({
        url: database.url,
        schema: WEBHOOKS_SCHEMA,
        entities: [],
        migrations: WEBHOOKS_MIGRATIONS,
      });
    pools = [await open(), await open()];
    a = new MessageStore(pools[0], 'replica-a');
    b = new MessageStore(pools[1], 'replica-b');
  });

  afterAll(async () => {
    await Promise.all((pools ?? []).map((pool) => pool.destroy()));
    await database?.drop();
  });

  beforeEach(async () => {
    await pools[0].query('DELETE FROM webhooks.messages');
  });

  async function subscription(): Promise<string> {
    const id = randomUUID();
    await pools[0].query(
      `INSERT INTO webhooks.subscriptions (id, tenant_id, url, events, expiring_days, sealed_secret)
       VALUES ($1, $2, 'https://hooks.example.com/', '{certificate.issued,certificate.revoked}', '{}', '\\x00')`,
      [id, tenantId],
    );
    return id;
  }

  const queue = (subscriptionId: string, type: string, orderKey: string) =>
    pools[0].transaction((manager) =>
      new SqlOutgoingMessageStore(manager).enqueue(
        { tenantId, type, orderKey, timestamp: new Date().toISOString(), data: {} },
        [subscriptionId],
      ),
    );

  it('hands each due message to one replica only', async () => {
    const sub = await subscription();
    for (let i = 0; i < 20; i++) await queue(sub, 'certificate.issued', `cert-${i}`);
    const [first, second] = await Promise.all([a.claim(12, 20, []), b.claim(12, 20, [])]);
    const ids = [...first, ...second].map((m) => m.id);
    expect(ids).toHaveLength(20);
    expect(new Set(ids).size).toBe(20);
    expect(await a.claim(10, 20, [])).toEqual([]);
  });

  it("keeps a certificate's later message back until the earlier one is delivered", async () => {
    const sub = await subscription();
    await queue(sub, 'certificate.issued', 'cert-1');
    await queue(sub, 'certificate.revoked', 'cert-1');
    await queue(sub, 'certificate.issued', 'cert-2');
    const claimed = await a.claim(10, 10, []);
    expect(claimed.map((m) => [m.type, JSON.parse(m.body).type])).toEqual([
      ['certificate.issued', 'certificate.issued'],
      ['certificate.issued', 'certificate.issued'],
    ]);
    expect(await b.claim(10, 10, [])).toEqual([]);
    const issued = claimed[0];
    // A failed attempt keeps it pending (retried later): the revocation still waits behind it.
    await a.settle(issued, { statusCode: 500, durationMs: 1 }, { retryAt: new Date(Date.now() + 60_000) });
    expect(await b.claim(10, 10, [])).toEqual([]);
    await pools[0].query('UPDATE webhooks.messages SET next_attempt_at = now() WHERE id = $1', [issued.id]);
    const retried = await b.claim(10, 10, []);
    expect(retried.map((m) => m.id)).toEqual([issued.id]);
    await b.settle(retried[0], OK, { delivered: true });
    expect((await a.claim(10, 10, [])).map((m) => m.type)).toEqual(['certificate.revoked']);
  });

  it('claims at most the per-subscription limit, and none of an excluded subscription', async () => {
    const busy = await subscription();
    const other = await subscription();
    for (let i = 0; i < 6; i++) await queue(busy, 'certificate.issued', `busy-${i}`);
    await queue(other, 'certificate.issued', 'other-0');
    const claimed = await a.claim(10, 2, []);
    expect(claimed.filter((m) => m.subscriptionId === busy)).toHaveLength(2);
    expect(claimed.filter((m) => m.subscriptionId === other)).toHaveLength(1);
    expect(await b.claim(10, 2, [busy])).toEqual([]);
  });

  it("lets another replica send a dead replica's message once its claim lapses, under the same id", async () => {
    const sub = await subscription();
    await queue(sub, 'certificate.issued', 'cert-1');
    const [held] = await a.claim(1, 1, []);
    // Replica a dies mid-attempt: nothing is settled, its claim stays until it lapses.
    expect(await b.claim(1, 1, [])).toEqual([]);
    await pools[0].query("UPDATE webhooks.messages SET claimed_until = now() - interval '1 second'");
    const [taken] = await b.claim(1, 1, []);
    expect(taken.id).toBe(held.id);
    // The first replica's late failure does not free the message the second one now holds.
    await a.settle(held, { error: 'timeout', durationMs: 10_000 }, { retryAt: new Date() });
    expect(await a.claim(1, 1, [])).toEqual([]);
    await b.settle(taken, OK, { delivered: true });
    const [row] = await pools[0].query('SELECT status, attempts FROM webhooks.messages WHERE id = $1', [
      held.id,
    ]);
    expect(row).toEqual({ status: 'delivered', attempts: 1 });
  });

  it('claims nothing of a deleted webhook', async () => {
    const sub = await subscription();
    await queue(sub, 'certificate.issued', 'cert-1');
    await pools[0].query('UPDATE webhooks.subscriptions SET deleted_at = now() WHERE id = $1', [sub]);
    expect(await a.claim(10, 10, [])).toEqual([]);
  });

  it('prunes finished messages and attempts past the retention window, never a pending one', async () => {
    const sub = await subscription();
    for (let i = 0; i < 3; i++) await queue(sub, 'certificate.issued', `old-${i}`);
    const [done, failed] = await a.claim(2, 10, []);
    await a.settle(done, OK, { delivered: true });
    await a.settle(failed, { statusCode: 500, durationMs: 1 }, { failed: true });
    const day = 86_400_000;
    await new WebhookHousekeeping(new SqlWebhookRetentionStore(pools[0]), day, () => undefined).prune(
      new Date(Date.now() + 2 * day),
    );
    const rows = (await pools[0].query('SELECT status FROM webhooks.messages WHERE subscription_id = $1', [
      sub,
    ])) as { status: string }[];
    expect(rows).toEqual([{ status: 'pending' }]);
    const [{ n }] = (await pools[0].query(
      'SELECT count(*)::int AS n FROM webhooks.attempts WHERE subscription_id = $1',
      [sub],
    )) as { n: number }[];
    expect(n).toBe(0);
  });
});
