import { DataSource, EntityManager } from 'typeorm';

/** A subscription as a tenant lists it. */
export interface StoredSubscription {
  id: string;
  url: string;
  events: string[];
  expiringDays: number[];
  createdAt: Date;
}

interface SubscriptionRow {
  id: string;
  url: string;
  events: string[];
  expiring_days: number[];
  created_at: Date;
}

/**
 * `webhooks.subscriptions`: the tenants' subscriptions, the signing secret only sealed. A deleted
 * one keeps its row (its messages and attempts name it) and is no longer found.
 */
export abstract class SubscriptionStore {
  /** Keeps a new subscription; when it was made. */
  abstract add(
    tenantId: string,
    subscription: { id: string; url: string; events: string[]; expiringDays: number[]; sealedSecret: Buffer },
  ): Promise<Date>;
  /** The tenant's subscriptions, oldest first. */
  abstract list(tenantId: string): Promise<StoredSubscription[]>;
  /** Marks the tenant's subscription deleted; false when it has none of this id (or deleted it before). */
  abstract markDeleted(tenantId: string, id: string): Promise<boolean>;
  /** Whether the tenant has this subscription (not deleted). */
  abstract exists(tenantId: string, id: string): Promise<boolean>;
}

export class SqlSubscriptionStore extends SubscriptionStore {
  constructor(private readonly db: DataSource | EntityManager) {
    super();
  }

  async add(
    tenantId: string,
    subscription: { id: string; url: string; events: string[]; expiringDays: number[]; sealedSecret: Buffer },
  ): Promise<Date> {
    const [row] = (await this.db.query(
      `INSERT INTO webhooks.subscriptions (id, tenant_id, url, events, expiring_days, sealed_secret)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING created_at`,
      [
        subscription.id,
        tenantId,
        subscription.url,
        subscription.events,
        subscription.expiringDays,
        subscription.sealedSecret,
      ],
    )) as { created_at: Date }[];
    return row.created_at;
  }

  async list(tenantId: string): Promise<StoredSubscription[]> {
    const rows = (await this.db.query(
      `SELECT id, url, events, expiring_days, created_at FROM webhooks.subscriptions
       WHERE tenant_id = $1 AND deleted_at IS NULL ORDER BY created_at, id`,
      [tenantId],
    )) as SubscriptionRow[];
    return rows.map((row) => ({
      id: row.id,
      url: row.url,
      events: row.events,
      expiringDays: row.expiring_days,
      createdAt: row.created_at,
    }));
  }

  async markDeleted(tenantId: string, id: string): Promise<boolean> {
    const [rows] = (await this.db.query(
      `UPDATE webhooks.subscriptions SET deleted_at = now()
       WHERE tenant_id = $1 AND id = $2 AND deleted_at IS NULL RETURNING id`,
      [tenantId, id],
    )) as [unknown[], number];
    return rows.length > 0;
  }

  async exists(tenantId: string, id: string): Promise<boolean> {
    const rows = (await this.db.query(
      'SELECT 1 FROM webhooks.subscriptions WHERE tenant_id = $1 AND id = $2 AND deleted_at IS NULL',
      [tenantId, id],
    )) as unknown[];
    return rows.length > 0;
  }
}
