import { EventEnvelope, TenantUpdatedPayload } from '@ca/contracts';
import { newEvent } from '@ca/messaging';
import { BlockedKeyStore } from './certificates/blocked-key.store';
import {
  BatchRevokedRow,
  CertificateRevocationStore,
  HoldRelease,
} from './certificates/certificate-revocation.store';
import { CertificateEntity } from './certificates/certificate.entity';
import {
  CertificateStore,
  CertificateSummaryRow,
  NewCertificate,
  RevokedCertificate,
} from './certificates/certificate.store';
import type { IssuanceDatabase, IssuanceTables } from './issuance-database.store';
import { OutboxStore } from './publication/outbox.store';
import { RevocationRecord } from './revocation-record';
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

/** A certificate row in memory: as inserted, then revoked or released. */
export type MemoryCertificateRow = NewCertificate & Partial<RevocationRecord> & { statusSequence?: number };

export class MemoryCertificateStore extends CertificateStore {
  readonly rows: MemoryCertificateRow[] = [];

  async insert(certificates: readonly NewCertificate[]): Promise<void> {
    this.rows.push(...certificates);
  }

  async nextStatusSequence(certificateId: string): Promise<number> {
    const row = this.rows.find((r) => r.id === certificateId)!;
    row.statusSequence = (row.statusSequence ?? 0) + 1;
    return row.statusSequence;
  }

  async byId(certificateId: string): Promise<CertificateEntity | null> {
    const row = this.rows.find((r) => r.id === certificateId);
    return row
      ? ({ revokedAt: null, revocationReason: null, revocationReasonCode: null, ...row } as CertificateEntity)
      : null;
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

/** The revocation columns of a MemoryCertificateStore's rows. */
export class MemoryCertificateRevocationStore extends CertificateRevocationStore {
  readonly holdReleases: HoldRelease[] = [];

  constructor(private readonly certificates: MemoryCertificateStore) {
    super();
  }

  async revoke(certificateId: string, tenantId: string, revocation: RevocationRecord): Promise<void> {
    const row = this.certificates.rows.find((r) => r.id === certificateId && r.tenantId === tenantId);
    if (row) Object.assign(row, revocation);
  }

  async releaseHold(release: HoldRelease): Promise<void> {
    const row = this.certificates.rows.find(
      (r) => r.id === release.certificateId && r.tenantId === release.tenantId,
    );
    if (row) {
      delete row.revokedAt;
      delete row.revocationReason;
      delete row.revocationReasonCode;
    }
    this.holdReleases.push(release);
  }

  async lockUnrevoked(tenantId: string, certificateIds: readonly string[]): Promise<Set<string>> {
    return new Set(this.unrevoked(tenantId, certificateIds).map((row) => row.id));
  }

  async revokeBatch(
    tenantId: string,
    certificateIds: readonly string[],
    revocation: RevocationRecord,
    withDer: boolean,
  ): Promise<BatchRevokedRow[]> {
    return this.unrevoked(tenantId, certificateIds).map((row) => {
      Object.assign(row, revocation);
      row.statusSequence = (row.statusSequence ?? 0) + 1;
      return {
        id: row.id,
        caId: row.caId,
        serialNumber: row.serialNumber,
        statusSequence: row.statusSequence,
        ...(withDer ? { certificateDer: row.certificateDer } : {}),
      };
    });
  }

  private unrevoked(tenantId: string, certificateIds: readonly string[]): MemoryCertificateRow[] {
    return this.certificates.rows.filter(
      (r) => certificateIds.includes(r.id) && r.tenantId === tenantId && !r.revokedAt,
    );
  }
}

export class MemoryBlockedKeyStore extends BlockedKeyStore {
  /** `tenant:spki hex` of each blocked key. */
  readonly blocked = new Set<string>();

  async block(tenantId: string, spkiSha256: Buffer): Promise<void> {
    this.blocked.add(`${tenantId}:${spkiSha256.toString('hex')}`);
  }
}

/**
 * An issuance database on in-memory stores: outside a transaction and in one, the same stores
 * (no rollback). A test gives the stores its subject uses.
 */
export function memoryDatabase(tables: Partial<IssuanceTables>): IssuanceDatabase {
  const all = tables as IssuanceTables;
  return {
    tables: all,
    transaction: <T>(work: (t: IssuanceTables) => Promise<T>) => work(all),
    applyOnce: async (_event: EventEnvelope, work: (t: IssuanceTables) => Promise<void>) => {
      await work(all);
      return true;
    },
    ready: async () => true,
  };
}
