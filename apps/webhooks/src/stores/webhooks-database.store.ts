import { EventEnvelope } from '@ca/contracts';
import { applyOnceEach } from '@ca/messaging';
import { DataSource, EntityManager } from 'typeorm';
import { DeliveryQueue } from '../delivery/delivery-queue';
import { WEBHOOKS_SCHEMA } from '../webhooks.schema';
import { AttemptStore, SqlAttemptStore } from './attempt.store';
import { MessageStore } from './message.store';
import { OutgoingMessageStore, SqlOutgoingMessageStore } from './outgoing-message.store';
import { SqlSubscriptionStore, SubscriptionStore } from './subscription.store';
import { SqlWatchedCertificateStore, WatchedCertificateStore } from './watched-certificate.store';
import { SqlWebhookRetentionStore, WebhookRetentionStore } from './webhook-retention.store';

/** The stores whose writes go together, on one connection (a transaction, or none). */
export interface WebhooksTables {
  subscriptions: SubscriptionStore;
  messages: OutgoingMessageStore;
  certificates: WatchedCertificateStore;
}

/**
 * The webhooks schema as a whole: its stores outside any transaction, one transaction over several
 * of them, and a run of events applied once each (their ids in `webhooks.inbox` in the same
 * transaction, so a redelivered event changes nothing).
 */
export abstract class WebhooksDatabase {
  abstract readonly tables: WebhooksTables;
  abstract readonly attempts: AttemptStore;
  abstract readonly retention: WebhookRetentionStore;
  /** The delivery queue as replica `replicaId` claims from it. */
  abstract deliveryQueue(replicaId: string): DeliveryQueue & { pending(): Promise<number> };
  /** Runs `work` in one transaction, on stores bound to it. */
  abstract transaction<T>(work: (tables: WebhooksTables) => Promise<T>): Promise<T>;
  /** Runs `work` for those of `events` not applied before (`fresh`), with their inbox entries, in one transaction. */
  abstract applyOnceEach<E extends EventEnvelope>(
    events: readonly E[],
    work: (tables: WebhooksTables, fresh: E[]) => Promise<void>,
  ): Promise<void>;
  /** `/health/ready`. */
  abstract ready(): Promise<boolean>;
}

export class SqlWebhooksDatabase extends WebhooksDatabase {
  readonly tables: WebhooksTables;
  readonly attempts: AttemptStore;
  readonly retention: WebhookRetentionStore;

  constructor(private readonly dataSource: DataSource) {
    super();
    this.tables = tablesOn(dataSource.manager);
    this.attempts = new SqlAttemptStore(dataSource);
    this.retention = new SqlWebhookRetentionStore(dataSource);
  }

  deliveryQueue(replicaId: string): MessageStore {
    return new MessageStore(this.dataSource, replicaId);
  }

  transaction<T>(work: (tables: WebhooksTables) => Promise<T>): Promise<T> {
    return this.dataSource.transaction((manager) => work(tablesOn(manager)));
  }

  async applyOnceEach<E extends EventEnvelope>(
    events: readonly E[],
    work: (tables: WebhooksTables, fresh: E[]) => Promise<void>,
  ): Promise<void> {
    await applyOnceEach(this.dataSource, WEBHOOKS_SCHEMA, events, (manager, fresh) =>
      work(tablesOn(manager), fresh),
    );
  }

  async ready(): Promise<boolean> {
    return this.dataSource.isInitialized && (await this.dataSource.query('SELECT 1')) !== undefined;
  }
}

function tablesOn(manager: EntityManager): WebhooksTables {
  return {
    subscriptions: new SqlSubscriptionStore(manager),
    messages: new SqlOutgoingMessageStore(manager),
    certificates: new SqlWatchedCertificateStore(manager),
  };
}
