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
import { DataSource } from 'typeorm';
import { newSigningSecret } from '../delivery/standard-webhooks';
import { enqueue } from '../events/enqueue';
import { TargetGuard, TargetRefused } from '../targets/target-guard';
import { SecretSealer } from './secret-sealer';

interface SubscriptionRow {
  id: string;
  url: string;
  events: string[];
  expiring_days: number[];
  created_at: Date;
}

const NOT_FOUND = 'No such webhook in this tenant.';

/**
 * A tenant's webhook subscriptions. The signing secret is made here, stored only sealed under the
 * context's KEK, and leaves once, sealed to the gateway's ephemeral key (never in clear on the bus).
 */
export class Subscriptions {
  constructor(
    private readonly dataSource: DataSource,
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
    const [row] = (await this.dataSource.query(
      `INSERT INTO webhooks.subscriptions (id, tenant_id, url, events, expiring_days, sealed_secret)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING created_at`,
      [
        webhookId,
        tenantId,
        request.url,
        request.events,
        request.expiringDays,
        this.sealer.seal({ tenantId, webhookId }, Buffer.from(secret)),
      ],
    )) as { created_at: Date }[];
    return { webhookId, createdAt: row.created_at.toISOString(), sealedSecret };
  }

  async list(tenantId: string): Promise<WebhookSummary[]> {
    const rows = (await this.dataSource.query(
      `SELECT id, url, events, expiring_days, created_at FROM webhooks.subscriptions
       WHERE tenant_id = $1 AND deleted_at IS NULL ORDER BY created_at, id`,
      [tenantId],
    )) as SubscriptionRow[];
    return rows.map(summary);
  }

  /** Deleting stops deliveries at once: its pending messages are dropped with it. */
  async delete(tenantId: string, webhookId: string): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const [rows] = (await manager.query(
        `UPDATE webhooks.subscriptions SET deleted_at = now()
         WHERE tenant_id = $1 AND id = $2 AND deleted_at IS NULL RETURNING id`,
        [tenantId, webhookId],
      )) as [unknown[], number];
      if (rows.length === 0) throw CaError.notFound(NOT_FOUND);
      await manager.query(
        `UPDATE webhooks.messages SET status = 'cancelled', finished_at = now()
         WHERE subscription_id = $1 AND status = 'pending'`,
        [webhookId],
      );
    });
  }

  /** Queues a `webhook.test` event for this subscription alone. */
  async test(tenantId: string, webhookId: string): Promise<{ eventId: string }> {
    const id = await this.dataSource.transaction(async (manager) => {
      await this.assertExists(manager.query.bind(manager), tenantId, webhookId);
      await enqueue(
        manager,
        {
          tenantId,
          type: WEBHOOK_TEST_EVENT,
          orderKey: 'test',
          timestamp: new Date().toISOString(),
          data: { tenantId, webhookId },
        },
        [webhookId],
      );
      const [row] = (await manager.query(
        `SELECT id FROM webhooks.messages WHERE subscription_id = $1 AND type = $2 ORDER BY seq DESC LIMIT 1`,
        [webhookId, WEBHOOK_TEST_EVENT],
      )) as { id: string }[];
      return row.id;
    });
    this.onQueued();
    return { eventId: id };
  }

  /** The newest attempts first (the delivery log). */
  async deliveries(tenantId: string, webhookId: string, limit = 100): Promise<WebhookDeliveryAttempt[]> {
    await this.assertExists(this.dataSource.query.bind(this.dataSource), tenantId, webhookId);
    const rows = (await this.dataSource.query(
      `SELECT message_id, type, attempt, status_code, duration_ms, at, error FROM webhooks.attempts
       WHERE subscription_id = $1 ORDER BY id DESC LIMIT $2`,
      [webhookId, Math.min(Math.max(limit, 1), 1000)],
    )) as AttemptRow[];
    return rows.map((row) => ({
      eventId: row.message_id,
      type: row.type,
      attempt: row.attempt,
      ...(row.status_code === null ? {} : { statusCode: row.status_code }),
      durationMs: row.duration_ms,
      at: new Date(row.at).toISOString(),
      ...(row.error === null ? {} : { error: row.error }),
    }));
  }

  private async assertExists(
    query: (sql: string, params: unknown[]) => Promise<unknown>,
    tenantId: string,
    webhookId: string,
  ): Promise<void> {
    const rows = (await query(
      'SELECT 1 FROM webhooks.subscriptions WHERE tenant_id = $1 AND id = $2 AND deleted_at IS NULL',
      [tenantId, webhookId],
    )) as unknown[];
    if (rows.length === 0) throw CaError.notFound(NOT_FOUND);
  }
}

interface AttemptRow {
  message_id: string;
  type: string;
  attempt: number;
  status_code: number | null;
  duration_ms: number;
  at: Date | string;
  error: string | null;
}

function summary(row: SubscriptionRow): WebhookSummary {
  return {
    webhookId: row.id,
    url: row.url,
    events: row.events,
    expiringDays: row.expiring_days,
    createdAt: row.created_at.toISOString(),
  };
}
