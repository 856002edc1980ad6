import { randomBytes } from 'node:crypto';
import { CaError, WEBHOOK_TEST_EVENT, WebhookRequest } from '@ca/contracts';
import { createSealRecipient } from '@ca/custody';
import { MemoryWebhooksDatabase } from '../stores/memory-stores';
import { TargetGuard } from '../targets/target-guard';
import { SecretSealer } from './secret-sealer';
import { Subscriptions } from './subscriptions';

const TENANT = '0b6c3a4e-2f1d-4c8b-9a7e-5d4c3b2a1f00';
const OTHER = '1c7d4b5f-3a2e-4d9c-8b6f-6e5d4c3b2a10';
const request: WebhookRequest = {
  url: 'https://hooks.example.com/ca',
  events: ['certificate.issued'],
  expiringDays: [],
};

/** Subscriptions on in-memory stores; every target is allowed (the guard has its own tests). */
function subscriptionsOn(database = new MemoryWebhooksDatabase()) {
  const queued: number[] = [];
  const allowAll = { check: async () => undefined } as unknown as TargetGuard;
  const subscriptions = new Subscriptions(database, new SecretSealer(randomBytes(32)), allowAll, () =>
    queued.push(1),
  );
  return { database, subscriptions, queued };
}

describe('webhook subscriptions', () => {
  const recipient = createSealRecipient();

  it("lists a tenant's subscriptions only to that tenant, and keeps the secret only sealed", async () => {
    const { database, subscriptions } = subscriptionsOn();
    const created = await subscriptions.create(TENANT, request, recipient.publicKey);
    const secret = recipient.open(created.sealedSecret).toString('utf8');
    expect(await subscriptions.list(TENANT)).toEqual([
      {
        webhookId: created.webhookId,
        url: request.url,
        events: request.events,
        expiringDays: [],
        createdAt: created.createdAt,
      },
    ]);
    expect(await subscriptions.list(OTHER)).toEqual([]);
    expect(database.subscriptions.rows[0].sealedSecret.toString('latin1')).not.toContain(secret);
  });

  it('refuses a recipient key that is no X25519 key, storing nothing', async () => {
    const { database, subscriptions } = subscriptionsOn();
    await expect(subscriptions.create(TENANT, request, 'not a key')).rejects.toMatchObject({
      errors: [expect.objectContaining({ field: 'recipientPublicKey' })],
    });
    expect(database.subscriptions.rows).toEqual([]);
  });

  it('queues a test event for that subscription alone, and answers its id', async () => {
    const { database, subscriptions, queued } = subscriptionsOn();
    const { webhookId } = await subscriptions.create(TENANT, request, recipient.publicKey);
    await subscriptions.create(TENANT, request, recipient.publicKey);
    const { eventId } = await subscriptions.test(TENANT, webhookId);
    expect(database.messages.rows).toEqual([
      expect.objectContaining({ id: eventId, subscriptionId: webhookId, type: WEBHOOK_TEST_EVENT }),
    ]);
    expect(JSON.parse(database.messages.rows[0].body)).toMatchObject({
      data: { tenantId: TENANT, webhookId },
    });
    expect(queued).toHaveLength(1);
  });

  it("deleting stops its pending deliveries; another tenant's id, or a second delete, is not found", async () => {
    const { database, subscriptions } = subscriptionsOn();
    const { webhookId } = await subscriptions.create(TENANT, request, recipient.publicKey);
    await subscriptions.test(TENANT, webhookId);
    await expect(subscriptions.delete(OTHER, webhookId)).rejects.toBeInstanceOf(CaError);
    expect(database.messages.rows.map((m) => m.status)).toEqual(['pending']);
    await subscriptions.delete(TENANT, webhookId);
    expect(database.messages.rows.map((m) => m.status)).toEqual(['cancelled']);
    expect(await subscriptions.list(TENANT)).toEqual([]);
    await expect(subscriptions.delete(TENANT, webhookId)).rejects.toThrow('No such webhook');
    await expect(subscriptions.test(TENANT, webhookId)).rejects.toThrow('No such webhook');
    await expect(subscriptions.deliveries(TENANT, webhookId)).rejects.toThrow('No such webhook');
  });

  it('shows the delivery log newest first, with the status code or error each attempt had', async () => {
    const { database, subscriptions } = subscriptionsOn();
    const { webhookId } = await subscriptions.create(TENANT, request, recipient.publicKey);
    const { eventId } = await subscriptions.test(TENANT, webhookId);
    const queue = database.deliveryQueue();
    const [first] = await queue.claim(10, 4, []);
    await queue.settle(first, { error: 'timeout', durationMs: 10_000 }, { retryAt: new Date() });
    const [second] = await queue.claim(10, 4, []);
    await queue.settle(second, { statusCode: 204, durationMs: 12 }, { delivered: true });
    const log = await subscriptions.deliveries(TENANT, webhookId);
    expect(log).toEqual([
      {
        eventId,
        type: WEBHOOK_TEST_EVENT,
        attempt: 2,
        statusCode: 204,
        durationMs: 12,
        at: expect.any(String),
      },
      {
        eventId,
        type: WEBHOOK_TEST_EVENT,
        attempt: 1,
        durationMs: 10_000,
        at: expect.any(String),
        error: 'timeout',
      },
    ]);
  });
});
