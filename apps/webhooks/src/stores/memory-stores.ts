import { randomUUID } from 'node:crypto';
import { CertificateIssuedPayload, EventEnvelope, WebhookDeliveryAttempt } from '@ca/contracts';
import { ClaimedMessage, DeliveryQueue, Settlement } from '../delivery/delivery-queue';
import { SendOutcome } from '../delivery/http-sender';
import { OutgoingEvent, webhookBody } from '../events/outgoing-event';
import { AttemptStore } from './attempt.store';
import { OutgoingMessageStore } from './outgoing-message.store';
import { StoredSubscription, SubscriptionStore } from './subscription.store';
import { DueCertificate, WatchedCertificate, WatchedCertificateStore } from './watched-certificate.store';
import { WebhookRetentionStore } from './webhook-retention.store';
import { WebhooksDatabase, WebhooksTables } from './webhooks-database.store';

/*
 * The webhooks schema in memory, for unit tests: each store keeps its rows in arrays and answers
 * as its SQL twin does. A transaction here is the work run on the same stores (no rollback), and
 * there are no competing replicas, so claims, locks and a half-done transaction belong with the
 * database suites (`*.int-spec.ts`).
 */

const DAY_MS = 86_400_000;

export interface MemorySubscription extends StoredSubscription {
  tenantId: string;
  sealedSecret: Buffer;
  deleted: boolean;
}

export class MemorySubscriptionStore extends SubscriptionStore {
  readonly rows: MemorySubscription[] = [];

  async add(
    tenantId: string,
    s: { id: string; url: string; events: string[]; expiringDays: number[]; sealedSecret: Buffer },
  ): Promise<Date> {
    const createdAt = new Date();
    this.rows.push({ ...s, tenantId, createdAt, deleted: false });
    return createdAt;
  }

  async list(tenantId: string): Promise<StoredSubscription[]> {
    return this.live(tenantId).map(({ id, url, events, expiringDays, createdAt }) => ({
      id,
      url,
      events,
      expiringDays,
      createdAt,
    }));
  }

  async markDeleted(tenantId: string, id: string): Promise<boolean> {
    const row = this.live(tenantId).find((s) => s.id === id);
    if (row) row.deleted = true;
    return row !== undefined;
  }

  async exists(tenantId: string, id: string): Promise<boolean> {
    return this.live(tenantId).some((s) => s.id === id);
  }

  /** The tenant's subscriptions not deleted, oldest first. */
  live(tenantId: string): MemorySubscription[] {
    return this.rows.filter((s) => s.tenantId === tenantId && !s.deleted);
  }
}

export interface MemoryMessage {
  id: string;
  subscriptionId: string;
  tenantId: string;
  type: string;
  orderKey: string;
  body: string;
  status: 'pending' | 'delivered' | 'failed' | 'cancelled';
  attempts: number;
  createdAt: Date;
}

export class MemoryOutgoingMessageStore extends OutgoingMessageStore {
  readonly rows: MemoryMessage[] = [];

  constructor(private readonly subscriptions: MemorySubscriptionStore) {
    super();
  }

  async enqueueAll(events: readonly OutgoingEvent[]): Promise<number> {
    let queued = 0;
    for (const event of events) queued += await this.enqueue(event);
    return queued;
  }

  async enqueue(event: OutgoingEvent, onlySubscriptions?: readonly string[]): Promise<number> {
    const to = this.subscriptions
      .live(event.tenantId)
      .filter((s) => (onlySubscriptions ? onlySubscriptions.includes(s.id) : s.events.includes(event.type)));
    for (const s of to) {
      this.rows.push({
        id: randomUUID(),
        subscriptionId: s.id,
        tenantId: s.tenantId,
        type: event.type,
        orderKey: event.orderKey,
        body: webhookBody(event),
        status: 'pending',
        attempts: 0,
        createdAt: new Date(),
      });
    }
    return to.length;
  }

  async newest(subscriptionId: string, type: string): Promise<string> {
    return this.rows.filter((m) => m.subscriptionId === subscriptionId && m.type === type).at(-1)!.id;
  }

  async cancelPending(subscriptionId: string): Promise<void> {
    for (const m of this.rows)
      if (m.subscriptionId === subscriptionId && m.status === 'pending') m.status = 'cancelled';
  }
}

export class MemoryAttemptStore extends AttemptStore {
  /** Each attempt with its subscription, oldest first. */
  readonly rows: (WebhookDeliveryAttempt & { subscriptionId: string })[] = [];

  async newestOf(subscriptionId: string, limit: number): Promise<WebhookDeliveryAttempt[]> {
    return this.rows
      .filter((a) => a.subscriptionId === subscriptionId)
      .reverse()
      .slice(0, limit)
      .map(({ subscriptionId: _, ...attempt }) => attempt);
  }
}

interface MemoryCertificate extends WatchedCertificate {
  renewedBy?: string;
  expiredAnnounced: boolean;
}

export class MemoryWatchedCertificateStore extends WatchedCertificateStore {
  readonly rows = new Map<string, MemoryCertificate>();
  /** `subscriptionId certificateId threshold` of each expiry notice given. */
  readonly notices = new Set<string>();

  constructor(private readonly subscriptions: MemorySubscriptionStore) {
    super();
  }

  async issuedMany(payloads: readonly CertificateIssuedPayload[]): Promise<WatchedCertificate[]> {
    const rows: WatchedCertificate[] = [];
    for (const p of payloads) rows.push(await this.issued(p));
    return rows;
  }

  async issued(p: CertificateIssuedPayload): Promise<WatchedCertificate> {
    const held = this.rows.get(p.certificateId);
    if (held) {
      held.not_after = p.notAfter;
      return row(held);
    }
    const fresh: MemoryCertificate = {
      certificate_id: p.certificateId,
      tenant_id: p.tenantId,
      serial_number: p.serialNumber,
      common_name: p.commonName ?? null,
      client_id: p.clientId ?? null,
      subject_alternative_names: p.subjectAlternativeNames ?? [],
      not_after: p.notAfter,
      revoked_at: null,
      expiredAnnounced: false,
    };
    this.rows.set(p.certificateId, fresh);
    return row(fresh);
  }

  async renewed(tenantId: string, certificateId: string, renewedBy: string): Promise<void> {
    const held = this.of(tenantId, certificateId);
    if (held) held.renewedBy = renewedBy;
  }

  async revoked(
    tenantId: string,
    certificateId: string,
    revokedAt: string,
  ): Promise<WatchedCertificate | undefined> {
    const held = this.of(tenantId, certificateId);
    if (!held) return undefined;
    held.revoked_at = revokedAt;
    return row(held);
  }

  async holdReleased(tenantId: string, certificateId: string): Promise<void> {
    const held = this.of(tenantId, certificateId);
    if (held) held.revoked_at = null;
  }

  async claimExpiring(now: Date, limit: number): Promise<DueCertificate[]> {
    const due: DueCertificate[] = [];
    for (const c of this.rows.values()) {
      const notAfter = new Date(c.not_after).getTime();
      if (c.revoked_at !== null || c.renewedBy || notAfter <= now.getTime()) continue;
      for (const s of this.subscriptions.live(c.tenant_id)) {
        if (!s.events.includes('certificate.expiring')) continue;
        const crossed = s.expiringDays.filter(
          (days) =>
            notAfter <= now.getTime() + days * DAY_MS &&
            !this.notices.has(`${s.id} ${c.certificate_id} ${days}`),
        );
        if (crossed.length === 0 || due.length >= limit) continue;
        for (const days of crossed) this.notices.add(`${s.id} ${c.certificate_id} ${days}`);
        due.push({ ...row(c), subscription_id: s.id, revoked_at: null });
      }
    }
    return due;
  }

  async claimExpired(now: Date, limit: number): Promise<WatchedCertificate[]> {
    const due = [...this.rows.values()]
      .filter((c) => new Date(c.not_after) <= now && c.revoked_at === null && !c.expiredAnnounced)
      .sort((a, b) => new Date(a.not_after).getTime() - new Date(b.not_after).getTime())
      .slice(0, limit);
    for (const c of due) c.expiredAnnounced = true;
    return due.map(row);
  }

  private of(tenantId: string, certificateId: string): MemoryCertificate | undefined {
    const held = this.rows.get(certificateId);
    return held?.tenant_id === tenantId ? held : undefined;
  }
}

/** The row as the SQL store returns it (without the columns it keeps for itself). */
function row({
  renewedBy: _renewed,
  expiredAnnounced: _announced,
  ...certificate
}: MemoryCertificate): WatchedCertificate {
  return certificate;
}

export class MemoryWebhookRetentionStore extends WebhookRetentionStore {
  readonly cutoffs: Date[] = [];

  async removeBefore(cutoff: Date): Promise<void> {
    this.cutoffs.push(cutoff);
  }
}

/**
 * `messages` as one replica's delivery queue: due at once, claimed until settled or released; a
 * message waits while an earlier one of its subscription and order key is pending.
 */
class MemoryDeliveryQueue implements DeliveryQueue {
  private readonly claimed = new Set<string>();

  constructor(
    private readonly subscriptions: MemorySubscriptionStore,
    private readonly messages: MemoryOutgoingMessageStore,
    private readonly attempts: MemoryAttemptStore,
  ) {}

  async claim(limit: number, perSubscription: number, exclude: readonly string[]): Promise<ClaimedMessage[]> {
    const pending = this.messages.rows.filter((m) => m.status === 'pending');
    const taken: ClaimedMessage[] = [];
    const perSub = new Map<string, number>();
    for (const m of pending) {
      const subscription = this.subscriptions.rows.find((s) => s.id === m.subscriptionId);
      const first = pending.find((e) => e.subscriptionId === m.subscriptionId && e.orderKey === m.orderKey);
      const count = perSub.get(m.subscriptionId) ?? 0;
      if (
        taken.length >= limit ||
        this.claimed.has(m.id) ||
        first !== m ||
        !subscription ||
        subscription.deleted
      )
        continue;
      if (exclude.includes(m.subscriptionId) || count >= perSubscription) continue;
      perSub.set(m.subscriptionId, count + 1);
      this.claimed.add(m.id);
      taken.push({
        id: m.id,
        subscriptionId: m.subscriptionId,
        tenantId: m.tenantId,
        url: subscription.url,
        sealedSecret: subscription.sealedSecret,
        type: m.type,
        body: m.body,
        attempts: m.attempts,
        createdAt: m.createdAt,
      });
    }
    return taken;
  }

  async release(ids: readonly string[]): Promise<void> {
    for (const id of ids) this.claimed.delete(id);
  }

  async settle(message: ClaimedMessage, outcome: SendOutcome, settlement: Settlement): Promise<void> {
    const m = this.messages.rows.find((row) => row.id === message.id);
    if (!m || !this.claimed.delete(message.id)) return;
    this.attempts.rows.push({
      subscriptionId: m.subscriptionId,
      eventId: m.id,
      type: m.type,
      attempt: m.attempts + 1,
      ...(outcome.statusCode === undefined ? {} : { statusCode: outcome.statusCode }),
      durationMs: outcome.durationMs,
      at: new Date().toISOString(),
      ...(outcome.error === undefined ? {} : { error: outcome.error }),
    });
    m.attempts++;
    if ('delivered' in settlement) m.status = 'delivered';
    else if ('failed' in settlement) m.status = 'failed';
  }

  async pending(): Promise<number> {
    return this.messages.rows.filter((m) => m.status === 'pending').length;
  }
}

export class MemoryWebhooksDatabase extends WebhooksDatabase {
  readonly subscriptions = new MemorySubscriptionStore();
  readonly messages = new MemoryOutgoingMessageStore(this.subscriptions);
  readonly certificates = new MemoryWatchedCertificateStore(this.subscriptions);
  readonly tables: WebhooksTables = {
    subscriptions: this.subscriptions,
    messages: this.messages,
    certificates: this.certificates,
  };
  readonly attempts = new MemoryAttemptStore();
  readonly retention = new MemoryWebhookRetentionStore();
  /** The ids of the events applied (the inbox). */
  readonly inbox = new Set<string>();

  deliveryQueue(): MemoryDeliveryQueue {
    return new MemoryDeliveryQueue(this.subscriptions, this.messages, this.attempts);
  }

  transaction<T>(work: (tables: WebhooksTables) => Promise<T>): Promise<T> {
    return work(this.tables);
  }

  async applyOnceEach<E extends EventEnvelope>(
    events: readonly E[],
    work: (tables: WebhooksTables, fresh: E[]) => Promise<void>,
  ): Promise<void> {
    if (events.length === 0) return;
    const fresh: E[] = [];
    for (const event of events) {
      if (this.inbox.has(event.id)) continue;
      this.inbox.add(event.id);
      fresh.push(event);
    }
    await work(this.tables, fresh);
  }

  async ready(): Promise<boolean> {
    return true;
  }
}
