import { EventEnvelope, TenantUpdatedPayload } from '@ca/contracts';
import { newEvent } from '@ca/messaging';
import { CertificateEntity } from './certificates/certificate.entity';
import {
  CertificateStore,
  CertificateSummaryRow,
  NewCertificate,
  RevokedCertificate,
} from './certificates/certificate.store';
import { OutboxStore } from './publication/outbox.store';
import { TenantStanding, TenantStandingStore } from './tenants/tenant-standing.store';

/*
 * Stores of the issuance schema in memory, for unit tests: each keeps its rows in arrays or maps
 * and answers as its SQL twin does, where the tests need it. A transaction over them is the work
 * run on the same stores (no rollback), so a test that needs one undone belongs with the database
 * suites (`*.int-spec.ts`).
 */

export class MemoryTenantStandingStore extends TenantStandingStore {
  /** By lower-case tenant id: the newest fact. */
  readonly facts = new Map<string, TenantUpdatedPayload>();
  /** By lower-case tenant id: Active certificates (a tenant not here has none). */
  readonly active = new Map<string, number>();

  async record(fact: TenantUpdatedPayload): Promise<void> {
    const tenant = fact.tenantId.toLowerCase();
    const stored = this.facts.get(tenant);
    if (!stored || stored.updatedAt <= fact.updatedAt) this.facts.set(tenant, fact);
  }

  async lockAndRead(
    tenantIds: readonly string[],
    defaultLimit: number,
  ): Promise<Map<string, TenantStanding>> {
    const standings = new Map<string, TenantStanding>();
    for (const tenant of new Set(tenantIds.map((tenantId) => tenantId.toLowerCase()))) {
      const fact = this.facts.get(tenant);
      standings.set(tenant, {
        suspended: fact?.status === 'suspended',
        limit: fact?.certificateLimit ?? defaultLimit,
        active: this.active.get(tenant) ?? 0,
      });
    }
    return standings;
  }
}

export class MemoryCertificateStore extends CertificateStore {
  readonly rows: NewCertificate[] = [];

  async insert(certificates: readonly NewCertificate[]): Promise<void> {
    this.rows.push(...certificates);
  }

  async nextStatusSequence(): Promise<number> {
    throw new Error('not kept in memory: the status sequence is tested on the database');
  }

  async byId(certificateId: string): Promise<CertificateEntity | null> {
    return (this.rows.find((row) => row.id === certificateId) as CertificateEntity | undefined) ?? null;
  }

  async hasSuccessor(certificateId: string): Promise<boolean> {
    return this.rows.some((row) => row.renewedFrom === certificateId);
  }

  async newestSuccessor(certificateId: string): Promise<string | undefined> {
    return this.rows
      .filter((row) => row.renewedFrom === certificateId)
      .sort((a, b) => b.issuedAt.getTime() - a.issuedAt.getTime())[0]?.id;
  }

  async summariesOf(): Promise<CertificateSummaryRow[]> {
    throw new Error('not kept in memory: the list is tested on the database');
  }

  async revokedUnder(): Promise<RevokedCertificate[]> {
    return [];
  }
}

export class MemoryOutboxStore extends OutboxStore {
  readonly events: EventEnvelope[] = [];

  async record<T extends { tenantId: string }>(type: string, payload: T): Promise<EventEnvelope<T>> {
    const event = newEvent(type, payload);
    this.events.push(event);
    return event;
  }

  async insert(events: readonly EventEnvelope[]): Promise<void> {
    this.events.push(...events);
  }

  async mark(): Promise<string> {
    return String(this.events.length);
  }

  async eventsSince(tenantId: string, types: readonly string[], since: string): Promise<EventEnvelope[]> {
    return this.events
      .slice(Number(since))
      .filter((event) => event.tenantId === tenantId && types.includes(event.type));
  }
}
