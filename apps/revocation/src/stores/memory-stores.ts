import { randomUUID } from 'node:crypto';
import { CrlPublishedPayload, EventEnvelope, EventType, RevocationReasonCodes } from '@ca/contracts';
import { CrlBuildLeaseStore } from './crl-build-lease.store';
import { CrlIssuerForBuild, CrlIssuerStore, NewCrlIssuer } from './crl-issuer.store';
import { CrlOutboxStore } from './crl-outbox.store';
import { CrlStore, StoredCrl } from './crl.store';
import { RevocationDatabase, RevocationTables } from './revocation-database.store';
import { RevokedCaEntry, RevokedCaStore } from './revoked-ca.store';
import {
  HeldEntry,
  LedgerEntry,
  LedgerRead,
  ListedEntry,
  RecordedEntry,
  RevokedCertificateStore,
} from './revoked-certificate.store';
import { RootCrlIssuerForBuild, RootCrlIssuerStore } from './root-crl-issuer.store';

/*
 * The revocation schema in memory, for unit tests: each store keeps its rows in maps and answers
 * as its SQL twin does. A transaction here is the work run on the same stores (no rollback), so a
 * test that needs one to fail half-way belongs with the database suites (`*.int-spec.ts`).
 */

/** How issuance writes a serial in a correction: lower case, no leading zeros. */
const serialValue = (serial: string) => serial.toLowerCase().replace(/^0+/, '');

interface IssuerRow extends NewCrlIssuer {
  entriesRemoved: number;
}

export class MemoryCrlIssuerStore extends CrlIssuerStore {
  readonly rows = new Map<string, IssuerRow>();
  /** Each CA's next CRLNumber. */
  readonly nextCrlNumber = new Map<string, bigint>();
  /** The newest CRL of each CA: nextUpdate and entry count (what `dueBefore` compares). */
  readonly newest = new Map<string, { nextUpdate: Date; entryCount: number }>();
  /** Entries per CA in the ledger, for `dueBefore`. */
  countEntries: (caId: string) => number = () => 0;

  async register(issuer: NewCrlIssuer): Promise<void> {
    if (this.rows.has(issuer.caId)) return;
    this.rows.set(issuer.caId, { ...issuer, entriesRemoved: 0 });
    this.nextCrlNumber.set(issuer.caId, 1n);
  }

  async isIssuerOf(tenantId: string, caId: string): Promise<boolean> {
    return this.rows.get(caId)?.tenantId === tenantId;
  }

  async issuersAmong(caIds: string[]): Promise<{ tenantId: string; caId: string }[]> {
    return caIds.flatMap((caId) => {
      const row = this.rows.get(caId);
      return row ? [{ tenantId: row.tenantId.toLowerCase(), caId: caId.toLowerCase() }] : [];
    });
  }

  async certificateOf(tenantId: string, caId: string): Promise<Buffer | undefined> {
    const row = this.rows.get(caId);
    return row?.tenantId === tenantId ? row.certificateDer : undefined;
  }

  async lock(): Promise<void> {}

  async countRemovals(caId: string, removed: number): Promise<void> {
    const row = this.rows.get(caId);
    if (row) row.entriesRemoved += removed;
  }

  async forBuild(caId: string): Promise<CrlIssuerForBuild | undefined> {
    const row = this.rows.get(caId);
    if (!row) return undefined;
    return {
      tenantId: row.tenantId,
      certificateDer: row.certificateDer,
      nextCrlNumber: this.nextCrlNumber.get(caId)!,
    };
  }

  async takeNumber(caId: string, crlNumber: bigint): Promise<boolean> {
    if (this.nextCrlNumber.get(caId) !== crlNumber) return false;
    this.nextCrlNumber.set(caId, crlNumber + 1n);
    return true;
  }

  async skipTo(caId: string, expected: bigint, next: bigint): Promise<void> {
    if (this.nextCrlNumber.get(caId) === expected) this.nextCrlNumber.set(caId, next);
  }

  async dueBefore(before: Date): Promise<string[]> {
    const now = new Date();
    return [...this.rows.values()]
      .filter((row) => new Date(row.notAfter) > now)
      .filter((row) => {
        const newest = this.newest.get(row.caId);
        return !newest || newest.nextUpdate < before || newest.entryCount !== this.countEntries(row.caId);
      })
      .map((row) => row.caId);
  }
}

export class MemoryCrlBuildLeaseStore extends CrlBuildLeaseStore {
  readonly leases = new Map<string, { owner: string; until: number }>();

  constructor(private readonly issuers: MemoryCrlIssuerStore) {
    super();
  }

  async take(caId: string, owner: string, leaseMs: number): Promise<boolean> {
    if (!this.issuers.rows.has(caId)) return false;
    const lease = this.leases.get(caId);
    if (lease && lease.until >= Date.now() && lease.owner !== owner) return false;
    this.leases.set(caId, { owner, until: Date.now() + leaseMs });
    return true;
  }

  async issuerExists(caId: string): Promise<boolean> {
    return this.issuers.rows.has(caId);
  }

  async renew(caId: string, owner: string, leaseMs: number): Promise<void> {
    if (this.leases.get(caId)?.owner === owner) this.leases.set(caId, { owner, until: Date.now() + leaseMs });
  }

  async release(caId: string, owner: string): Promise<void> {
    if (this.leases.get(caId)?.owner === owner) this.leases.delete(caId);
  }
}

export class MemoryRevokedCertificateStore extends RevokedCertificateStore {
  /** Entries per CA, in the order they were recorded. */
  readonly entries = new Map<string, (RecordedEntry & { tenantId: string; certificateId: string })[]>();

  constructor(private readonly issuers: MemoryCrlIssuerStore) {
    super();
  }

  /** `add`, at once (no promise): what a test records between two calls it does not await. */
  record(entry: LedgerEntry): boolean {
    const entries = this.entries.get(entry.caId) ?? [];
    if (entries.some((e) => e.serialNumber === entry.serialNumber)) return false;
    entries.push({
      tenantId: entry.tenantId,
      certificateId: entry.certificateId,
      serialNumber: entry.serialNumber,
      revocationDate: new Date(entry.revokedAt),
      reasonCode: entry.reasonCode,
      recordedAt: new Date(),
    });
    this.entries.set(entry.caId, entries);
    return true;
  }

  async add(entry: LedgerEntry): Promise<boolean> {
    return this.record(entry);
  }

  async addMany(entries: LedgerEntry[]): Promise<string[]> {
    return [...new Set(entries.filter((entry) => this.record(entry)).map((entry) => entry.caId))];
  }

  async addNew(entries: LedgerEntry[]): Promise<LedgerEntry[]> {
    return entries.filter((entry) => this.record(entry));
  }

  async addUnderIssuer(
    tenantId: string,
    issuerCaId: string,
    entry: Omit<LedgerEntry, 'tenantId' | 'caId'>,
  ): Promise<boolean> {
    if (!(await this.issuers.isIssuerOf(tenantId, issuerCaId))) return false;
    return this.record({ ...entry, tenantId, caId: issuerCaId });
  }

  async removeHold(hold: HeldEntry): Promise<boolean> {
    const heldSince = new Date(hold.heldSince).getTime();
    return (
      this.removeWhere(
        hold.caId,
        (e) =>
          e.tenantId === hold.tenantId &&
          e.serialNumber === hold.serialNumber &&
          e.certificateId === hold.certificateId &&
          e.reasonCode === RevocationReasonCodes.CertificateHold &&
          e.revocationDate.getTime() === heldSince,
      ) > 0
    );
  }

  async entriesOf(tenantId: string, caId: string): Promise<ListedEntry[]> {
    return (this.entries.get(caId) ?? []).filter((e) => e.tenantId === tenantId).map(listed);
  }

  async remove(caId: string, serialNumbers: string[]): Promise<void> {
    this.removeWhere(caId, (e) => serialNumbers.includes(e.serialNumber));
  }

  async removeSerials(caId: string, serialsHex: string[]): Promise<number> {
    return this.removeWhere(caId, (e) => serialsHex.includes(serialValue(e.serialNumber)));
  }

  async removeOtherSpellings(caId: string, serialHex: string): Promise<number> {
    return this.removeWhere(
      caId,
      (e) => serialValue(e.serialNumber) === serialValue(serialHex) && e.serialNumber !== serialHex,
    );
  }

  async correct(entry: LedgerEntry): Promise<boolean> {
    const existing = (this.entries.get(entry.caId) ?? []).find((e) => e.serialNumber === entry.serialNumber);
    if (!existing) return this.record(entry);
    const revocationDate = new Date(entry.revokedAt);
    if (
      existing.revocationDate.getTime() === revocationDate.getTime() &&
      existing.reasonCode === entry.reasonCode &&
      existing.certificateId === entry.certificateId
    )
      return false;
    Object.assign(existing, {
      revocationDate,
      reasonCode: entry.reasonCode,
      certificateId: entry.certificateId,
      recordedAt: new Date(),
    });
    return true;
  }

  async read(caId: string, since?: Date): Promise<LedgerRead> {
    const all = this.entries.get(caId) ?? [];
    return {
      total: all.length,
      removals: String(this.issuers.rows.get(caId)?.entriesRemoved ?? 0),
      entries: all
        .filter((e) => !since || e.recordedAt >= since)
        .map((e) => ({ ...listed(e), recordedAt: e.recordedAt })),
    };
  }

  private removeWhere(caId: string, match: (entry: RecordedEntry & LedgerEntryExtra) => boolean): number {
    const entries = this.entries.get(caId) ?? [];
    const kept = entries.filter((e) => !match(e));
    this.entries.set(caId, kept);
    return entries.length - kept.length;
  }
}

type LedgerEntryExtra = { tenantId: string; certificateId: string };

const listed = (entry: ListedEntry): ListedEntry => ({
  serialNumber: entry.serialNumber,
  revocationDate: entry.revocationDate,
  reasonCode: entry.reasonCode,
});

export class MemoryRootCrlIssuerStore extends RootCrlIssuerStore {
  readonly rows = new Map<
    string,
    NewCrlIssuer & { nextCrlNumber: bigint; nextUpdate?: Date; entryCount: number }
  >();
  /** Revoked issuing CAs per tenant, for `dueBefore`. */
  countEntries: (tenantId: string) => number = () => 0;

  async register(issuer: NewCrlIssuer): Promise<void> {
    if (!this.rows.has(issuer.tenantId))
      this.rows.set(issuer.tenantId, { ...issuer, nextCrlNumber: 1n, entryCount: 0 });
  }

  async isRootOf(tenantId: string, caId: string): Promise<boolean> {
    return this.rows.get(tenantId)?.caId === caId;
  }

  async certificateOf(tenantId: string, caId: string): Promise<Buffer | undefined> {
    const row = this.rows.get(tenantId);
    return row?.caId === caId ? row.certificateDer : undefined;
  }

  async forBuild(tenantId: string): Promise<RootCrlIssuerForBuild | undefined> {
    const row = this.rows.get(tenantId);
    return row && { certificateDer: row.certificateDer, nextCrlNumber: row.nextCrlNumber };
  }

  async takeNumber(
    tenantId: string,
    crlNumber: bigint,
    nextUpdate: Date,
    entryCount: number,
  ): Promise<boolean> {
    const row = this.rows.get(tenantId);
    if (row?.nextCrlNumber !== crlNumber) return false;
    Object.assign(row, { nextCrlNumber: crlNumber + 1n, nextUpdate, entryCount });
    return true;
  }

  async skipTo(tenantId: string, expected: bigint, next: bigint): Promise<void> {
    const row = this.rows.get(tenantId);
    if (row?.nextCrlNumber === expected) row.nextCrlNumber = next;
  }

  async dueBefore(before: Date): Promise<string[]> {
    const now = new Date();
    return [...this.rows.values()]
      .filter((row) => new Date(row.notAfter) > now)
      .filter(
        (row) =>
          !row.nextUpdate || row.nextUpdate < before || row.entryCount !== this.countEntries(row.tenantId),
      )
      .map((row) => row.tenantId);
  }
}

export class MemoryRevokedCaStore extends RevokedCaStore {
  readonly entries = new Map<string, RevokedCaEntry[]>();

  async add(entry: RevokedCaEntry): Promise<boolean> {
    const entries = this.entries.get(entry.tenantId) ?? [];
    if (entries.some((e) => e.serialNumber === entry.serialNumber)) return false;
    this.entries.set(entry.tenantId, [...entries, entry]);
    return true;
  }

  async entriesOf(tenantId: string): Promise<ListedEntry[]> {
    return (this.entries.get(tenantId) ?? []).map((e) => ({
      serialNumber: e.serialNumber,
      revocationDate: new Date(e.revokedAt),
      reasonCode: e.reasonCode,
    }));
  }

  async removeSerials(tenantId: string, serialsHex: string[]): Promise<number> {
    return this.removeWhere(tenantId, (e) => serialsHex.includes(serialValue(e.serialNumber)));
  }

  async removeOtherSpellings(tenantId: string, serialHex: string): Promise<number> {
    return this.removeWhere(
      tenantId,
      (e) => serialValue(e.serialNumber) === serialValue(serialHex) && e.serialNumber !== serialHex,
    );
  }

  async correct(entry: RevokedCaEntry): Promise<boolean> {
    const existing = (this.entries.get(entry.tenantId) ?? []).find(
      (e) => e.serialNumber === entry.serialNumber,
    );
    if (!existing) return this.add(entry);
    if (
      new Date(existing.revokedAt).getTime() === new Date(entry.revokedAt).getTime() &&
      existing.reasonCode === entry.reasonCode &&
      existing.caId === entry.caId
    )
      return false;
    Object.assign(existing, { revokedAt: entry.revokedAt, reasonCode: entry.reasonCode, caId: entry.caId });
    return true;
  }

  private removeWhere(tenantId: string, match: (entry: RevokedCaEntry) => boolean): number {
    const entries = this.entries.get(tenantId) ?? [];
    const kept = entries.filter((e) => !match(e));
    this.entries.set(tenantId, kept);
    return entries.length - kept.length;
  }
}

/** A CRL row as `revocation.crls` holds it (the number as a decimal string). */
export interface CrlRow {
  caId: string;
  tenantId: string;
  crlNumber: string;
  entryCount: number;
  der: Buffer;
}

export class MemoryCrlStore extends CrlStore {
  /** Every CRL kept, oldest first. */
  readonly rows: CrlRow[] = [];

  constructor(private readonly issuers: MemoryCrlIssuerStore) {
    super();
  }

  async add(crl: StoredCrl): Promise<void> {
    this.rows.push({
      caId: crl.caId,
      tenantId: crl.tenantId,
      crlNumber: crl.crlNumber.toString(),
      entryCount: crl.entryCount,
      der: Buffer.from(crl.der),
    });
    this.issuers.newest.set(crl.caId, { nextUpdate: crl.nextUpdate, entryCount: crl.entryCount });
    const oldest = crl.crlNumber - 2n;
    for (let i = this.rows.length - 1; i >= 0; i--) {
      if (this.rows[i].caId === crl.caId && BigInt(this.rows[i].crlNumber) < oldest) this.rows.splice(i, 1);
    }
  }
}

export class MemoryCrlOutboxStore extends CrlOutboxStore {
  /** Every event recorded, oldest first, with when the relay published it (unset: not yet). */
  readonly events: { type: string; payload: CrlPublishedPayload; publishedAt?: Date }[] = [];

  async recordPublished(payload: CrlPublishedPayload): Promise<EventEnvelope<CrlPublishedPayload>> {
    this.events.push({ type: EventType.CrlPublished, payload });
    return {
      id: randomUUID(),
      type: EventType.CrlPublished,
      tenantId: payload.tenantId,
      occurredAt: new Date().toISOString(),
      payload,
    };
  }

  async supersededBlobs(from: Date, to: Date): Promise<string[]> {
    const sameLine = (a: CrlPublishedPayload, b: CrlPublishedPayload) =>
      a.tenantId === b.tenantId && a.issuer === b.issuer && a.caId === b.caId;
    return this.events
      .filter((event, i) => {
        const successor = this.events.slice(i + 1).find((next) => sameLine(next.payload, event.payload));
        const at = successor?.publishedAt;
        return at !== undefined && at > from && at <= to;
      })
      .map((event) => event.payload.blobRef);
  }
}

/** Every table of the revocation schema in memory. */
export class MemoryRevocationDatabase extends RevocationDatabase {
  readonly issuers = new MemoryCrlIssuerStore();
  readonly tables: RevocationTables & {
    issuers: MemoryCrlIssuerStore;
    rootIssuers: MemoryRootCrlIssuerStore;
    ledger: MemoryRevokedCertificateStore;
    revokedCas: MemoryRevokedCaStore;
    crls: MemoryCrlStore;
    outbox: MemoryCrlOutboxStore;
  };
  readonly lease = new MemoryCrlBuildLeaseStore(this.issuers);
  /** Ids of the events applied (revocation.inbox). */
  readonly inbox = new Set<string>();

  constructor() {
    super();
    const ledger = new MemoryRevokedCertificateStore(this.issuers);
    const revokedCas = new MemoryRevokedCaStore();
    const rootIssuers = new MemoryRootCrlIssuerStore();
    this.issuers.countEntries = (caId) => ledger.entries.get(caId)?.length ?? 0;
    rootIssuers.countEntries = (tenantId) => revokedCas.entries.get(tenantId)?.length ?? 0;
    this.tables = {
      issuers: this.issuers,
      rootIssuers,
      ledger,
      revokedCas,
      crls: new MemoryCrlStore(this.issuers),
      outbox: new MemoryCrlOutboxStore(),
    };
  }

  transaction<T>(work: (tables: RevocationTables) => Promise<T>): Promise<T> {
    return work(this.tables);
  }

  async applyOnce(event: EventEnvelope, work: (tables: RevocationTables) => Promise<void>): Promise<boolean> {
    const id = event.id.toLowerCase();
    if (this.inbox.has(id)) return false;
    await work(this.tables);
    this.inbox.add(id);
    return true;
  }

  async applyOnceEach<T extends EventEnvelope>(
    events: readonly T[],
    work: (tables: RevocationTables, fresh: T[]) => Promise<void>,
  ): Promise<T[]> {
    const fresh = events.filter((event) => !this.inbox.has(event.id.toLowerCase()));
    if (fresh.length > 0) await work(this.tables, fresh);
    for (const event of fresh) this.inbox.add(event.id.toLowerCase());
    return fresh;
  }

  async applyEach<T extends EventEnvelope>(
    events: readonly T[],
    work: (tables: RevocationTables, unseen: T[]) => Promise<T[]>,
  ): Promise<T[]> {
    const unseen = events.filter((event) => !this.inbox.has(event.id.toLowerCase()));
    const applied = unseen.length > 0 ? await work(this.tables, unseen) : [];
    for (const event of applied) this.inbox.add(event.id.toLowerCase());
    return applied;
  }

  async ready(): Promise<boolean> {
    return true;
  }
}
