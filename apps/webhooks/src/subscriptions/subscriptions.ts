import { randomUUID } from 'node:crypto';
import {
  CaError,
  CreateWebhookResult,
  WEBHOOK_TEST_EVENT,
  WebhookDeliveryAttempt,
  WebhookRequest,
  WebhookSummary,
} from '@ca/contracts';
import { sealTo } from '@ca/custody';
import { newSigningSecret } from '../delivery/standard-webhooks';
import { StoredSubscription, SubscriptionStore } from '../stores/subscription.store';
import { WebhooksDatabase } from '../stores/webhooks-database.store';
import { TargetGuard, TargetRefused } from '../targets/target-guard';
import { SecretSealer } from './secret-sealer';

const NOT_FOUND = 'No such webhook in this tenant.';

/**
 * A tenant's webhook subscriptions. The signing secret is made here, stored only sealed under the
 * context's KEK, and leaves once, sealed to the gateway's ephemeral key (never in clear on the bus).
 */
export class Subscriptions {
  constructor(
    private readonly database: WebhooksDatabase,
    private readonly sealer: SecretSealer,
    private readonly guard: TargetGuard,
    private readonly onQueued: () => void,
  ) {}

  async create(
    tenantId: string,
    request: WebhookRequest,
    recipientPublicKey: string,
  ): Promise<CreateWebhookResult> {
    try {
      await this.guard.check(request.url);
    } catch (error) {
      if (error instanceof TargetRefused)
        throw CaError.validation([{ field: 'url', message: error.message }]);
      throw error;
    }
    const webhookId = randomUUID();
    const secret = newSigningSecret();
    let sealedSecret;
    try {
      sealedSecret = sealTo(recipientPublicKey, Buffer.from(secret));
    } catch {
      throw CaError.validation([{ field: 'recipientPublicKey', message: 'must be an X25519 public key' }]);
    }
    const createdAt = await this.database.tables.subscriptions.add(tenantId, {
      id: webhookId,
      url: request.url,
      events: request.events,
      expiringDays: request.expiringDays,
      sealedSecret: this.sealer.seal({ tenantId, webhookId }, Buffer.from(secret)),
    });
    return { webhookId, createdAt: createdAt.toISOString(), sealedSecret };
  }

  async list(tenantId: string): Promise<WebhookSummary[]> {
    return (await this.database.tables.subscriptions.list(tenantId)).map(summary);
  }

  /** Deleting stops deliveries at once: its pending messages are dropped with it. */
  async delete(tenantId: string, webhookId: string): Promise<void> {
    await this.database.transaction(async ({ subscriptions, messages }) => {
      if (!(await subscriptions.markDeleted(tenantId, webhookId))) throw CaError.notFound(NOT_FOUND);
      await messages.cancelPending(webhookId);
    });
  }

  /** Queues a `webhook.test` event for this subscription alone. */
  async test(tenantId: string, webhookId: string): Promise<{ eventId: string }> {
    const id = await this.database.transaction(async ({ subscriptions, messages }) => {
      await assertExists(subscriptions, tenantId, webhookId);
      await messages.enqueue(
        {
          tenantId,
          type: WEBHOOK_TEST_EVENT,
          orderKey: 'test',
          timestamp: new Date().toISOString(),
          data: { tenantId, webhookId },
        },
        [webhookId],
      );
      return messages.newest(webhookId, WEBHOOK_TEST_EVENT);
    });
    this.onQueued();
    return { eventId: id };
  }

  /** The newest attempts first (the delivery log). */
  async deliveries(tenantId: string, webhookId: string, limit = 100): Promise<WebhookDeliveryAttempt[]> {
    await assertExists(this.database.tables.subscriptions, tenantId, webhookId);
    return this.database.attempts.newestOf(webhookId, Math.min(Math.max(limit, 1), 1000));
  }
}

async function assertExists(
  subscriptions: SubscriptionStore,
  tenantId: string,
  webhookId: string,
): Promise<void> {
  if (!(await subscriptions.exists(tenantId, webhookId))) throw CaError.notFound(NOT_FOUND);
}

function summary(row: StoredSubscription): WebhookSummary {
  return {
    webhookId: row.id,
    url: row.url,
    events: row.events,
    expiringDays: row.expiringDays,
    createdAt: row.createdAt.toISOString(),
  };
}
