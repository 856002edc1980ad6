import { EventEnvelope } from '@ca/contracts';
import { applyOnceEach } from '@ca/messaging';
import { DataSource, EntityManager } from 'typeorm';
import { WEBHOOKS_SCHEMA } from '../webhooks.schema';
import { AttemptStore } from './attempt.store';
import { MessageStore } from './message.store';
import { OutgoingMessageStore } from './outgoing-message.store';
import { SubscriptionStore } from './subscription.store';
import { WatchedCertificateStore } from './watched-certificate.store';
import { WebhookRetentionStore } from './webhook-retention.store';

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
export class WebhooksDatabase {
  readonly tables: WebhooksTables;
  readonly attempts: AttemptStore;
  readonly retention: WebhookRetentionStore;

  constructor(private readonly dataSource: DataSource) {
    this.tables = tablesOn(dataSource.manager);
    this.attempts = new AttemptStore(dataSource);
    this.retention = new WebhookRetentionStore(dataSource);
  }

  /** The delivery queue as replica `replicaId` claims from it. */
  deliveryQueue(replicaId: string): MessageStore {
    return new MessageStore(this.dataSource, replicaId);
  }

  /** Runs `work` in one transaction, on stores bound to it. */
  transaction<T>(work: (tables: WebhooksTables) => Promise<T>): Promise<T> {
    return this.dataSource.transaction((manager) => work(tablesOn(manager)));
  }

  /** Runs `work` for those of `events` not applied before (`fresh`), with their inbox entries, in one transaction. */
  async applyOnceEach<E extends EventEnvelope>(
    events: readonly E[],
    work: (tables: WebhooksTables, fresh: E[]) => Promise<void>,
  ): Promise<void> {
    await applyOnceEach(this.dataSource, WEBHOOKS_SCHEMA, events, (manager, fresh) =>
      work(tablesOn(manager), fresh),
    );
  }

  /** `/health/ready`. */
  async ready(): Promise<boolean> {
    return this.dataSource.isInitialized && (await this.dataSource.query('SELECT 1')) !== undefined;
  }
}

function tablesOn(manager: EntityManager): WebhooksTables {
  return {
    subscriptions: new SubscriptionStore(manager),
    messages: new OutgoingMessageStore(manager),
    certificates: new WatchedCertificateStore(manager),
  };
}
