import { createHash } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { CrlPublishedPayload, EventEnvelope, isUuid, parseTenantId, parseUuid } from '@ca/contracts';
import { BlobStore, applyOnce } from '@ca/messaging';
import { isDatabaseUnavailable } from '@ca/persistence';
import { checkCrlIssuedBy } from '@ca/pki';
import { DataSource } from 'typeorm';
import { OCSP_SCHEMA } from '../ocsp.schema';

export interface ServedCrl {
  der: Buffer;
  etag: string;
  thisUpdate: Date;
  nextUpdate: Date;
}

interface CachedCrl {
  crl: ServedCrl;
  sha256: string;
}

/** After a failed copy round (database or blob store unreachable), the next attempt. */
const COPY_RETRY_MS = 1_000;
/** A CRL announced before the tenant's CA certificate arrived waits for it this long between tries. */
const CA_WAIT_RETRY_MS = 1_000;
/** RFC 5280 5.2.3: a CRL number has at most 20 octets, so at most 49 decimal digits. */
const CRL_NUMBER = /^\d{1,49}$/;
const SHA256_HEX = /^[0-9a-f]{64}$/i;

/**
 * Where one kind of CRL is kept and which CA certificate verifies it: the CRL of the CA made at
 * initialization that signs leaves (`/crl`), the root's (`root.crl`,
 * docs/api.md#distribution-points), or that of an issuing CA added later, one per CA
 * (docs/api.md#add-an-issuing-ca). Table and column names are these constants, never input.
 */
export interface CrlLine {
  served: 'ocsp.crls' | 'ocsp.root_crls' | 'ocsp.ca_crls';
  pending: 'ocsp.pending_crls' | 'ocsp.pending_root_crls' | 'ocsp.pending_ca_crls';
  /** Whose CRLs these are: one per tenant, or one per CA (`caId` of the announcement). */
  key: 'tenant_id' | 'ca_id';
  /** The certificate of the CA that signs them, by key (`certificate_der`, null when there is none). */
  caSql: string;
}

export const LEAF_CRLS: CrlLine = {
  served: 'ocsp.crls',
  pending: 'ocsp.pending_crls',
  key: 'tenant_id',
  caSql: 'SELECT certificate_der FROM ocsp.ca_certificates WHERE tenant_id = $1',
};
export const ROOT_CRLS: CrlLine = {
  served: 'ocsp.root_crls',
  pending: 'ocsp.pending_root_crls',
  key: 'tenant_id',
  caSql: 'SELECT root_certificate_der AS certificate_der FROM ocsp.ca_certificates WHERE tenant_id = $1',
};
export const ADDED_CA_CRLS: CrlLine = {
  served: 'ocsp.ca_crls',
  pending: 'ocsp.pending_ca_crls',
  key: 'ca_id',
  caSql: 'SELECT certificate_der FROM ocsp.added_cas WHERE ca_id = $1',
};

interface PendingCrl {
  owner: string;
  crl_number: string;
  blob_ref: string;
  sha256: string;
}

/** A pending CRL that may be served: its DER and what its own (verified) contents say. */
interface CheckedCrl {
  der: Buffer;
  crlNumber: bigint;
  thisUpdate: Date;
  nextUpdate: Date;
}

/**
 * The newest CRL of each tenant, copied into the responder's schema from `crl.published`, so it
 * is served while the other services are down. The bus is not trusted: a CRL is served only when
 * its signature verifies with the public key of the tenant CA certificate this responder holds,
 * its issuer Name and Authority Key Identifier are that CA's, and its CRL number is higher than
 * the served one's (RFC 5280 6.3.3, 5.2.3). Any other is refused with a logged reason and set
 * aside; it never blocks the event consumer nor replaces the served CRL.
 */
export class CrlStore {
  private readonly logger = new Logger('CrlStore');
  /**
   * The DER of the CRL last served per tenant, revalidated before every answer: another replica
   * may have stored a newer CRL (only one replica applies each event), and a relying party that
   * alternates replicas must never get an older CRL than it got before. The check reads the
   * stored digest only (one primary-key lookup); the megabytes only when it changed.
   * docs/architecture.md#replica-consistency
   */
  private readonly cache = new Map<string, CachedCrl>();
  private copying: Promise<void> | undefined;
  private copyAgain = false;
  private stopped = false;

  constructor(
    private readonly dataSource: DataSource,
    private readonly blobs: BlobStore,
    private readonly line: CrlLine = LEAF_CRLS,
  ) {}

  /**
   * Records the announced CRL as pending (newest per tenant) and returns: the copy of a CRL of
   * megabytes happens off the event consumer (`copyPending`), so the status changes queued behind
   * this event are applied without waiting for it.
   * Pending rows are durable: a copy cut short by a crash is done after the restart.
   */
  async apply(event: EventEnvelope<CrlPublishedPayload>): Promise<void> {
    const { tenantId, caId, crlNumber, thisUpdate, nextUpdate, blobRef, sha256 } = event.payload;
    const perCa = this.line.key === 'ca_id';
    const malformed =
      malformedAnnouncement(event.payload) ?? (perCa && !isUuid(caId) ? 'caId is not a UUID' : undefined);
    await applyOnce(this.dataSource, OCSP_SCHEMA, event, async (manager) => {
      if (malformed) {
        this.logger.warn({ tenantId, eventId: event.id, reason: malformed }, 'CRL announcement refused');
        return;
      }
      await manager.query(
        `INSERT INTO ${this.line.pending} (${this.line.key}, crl_number, this_update, next_update, blob_ref, sha256)
         VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (${this.line.key}, crl_number, sha256) DO NOTHING`,
        [parseUuid(perCa && caId ? caId : tenantId), crlNumber, thisUpdate, nextUpdate, blobRef, sha256],
      );
    });
    this.copyPending();
  }

  /** Copies every pending CRL now (again after the current round if one is running). */
  copyPending(): void {
    if (this.stopped) return;
    if (this.copying) {
      this.copyAgain = true;
      return;
    }
    this.copying = this.copyRound()
      .catch((err: unknown) => {
        this.logger.warn({ err }, 'copying published CRLs failed; retrying');
        setTimeout(() => this.copyPending(), COPY_RETRY_MS).unref();
      })
      .finally(() => {
        this.copying = undefined;
        if (this.copyAgain) {
          this.copyAgain = false;
          this.copyPending();
        }
      });
  }

  /** Waits for a copy in progress; copies nothing afterwards. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.copying;
  }

  /**
   * Per tenant, the pending CRLs from the highest number down: the first that passes every check
   * is stored and served, and it settles all pending ones numbered up to it; each refused one is
   * logged and dropped. A tenant whose CA certificate has not arrived yet keeps its CRLs pending.
   */
  private async copyRound(): Promise<void> {
    const pending: PendingCrl[] = await this.dataSource.query(
      `SELECT ${this.line.key} AS owner, crl_number, blob_ref, sha256 FROM ${this.line.pending}
        ORDER BY ${this.line.key}, crl_number DESC`,
    );
    let waitingForCa = false;
    for (const [tenantId, crls] of groupByTenant(pending)) {
      if (this.stopped) return;
      const ca: { certificate_der: Buffer | null }[] = await this.dataSource.query(this.line.caSql, [
        tenantId,
      ]);
      if (ca.length === 0) {
        waitingForCa = true;
        continue;
      }
      const caDer = ca[0].certificate_der;
      const served: { crl_number: string }[] = await this.dataSource.query(
        `SELECT crl_number FROM ${this.line.served} WHERE ${this.line.key} = $1`,
        [tenantId],
      );
      const servedNumber = served.length > 0 ? BigInt(served[0].crl_number) : -1n;
      for (const crl of crls) {
        if (this.stopped) return;
        // A root that signs leaves itself has no root.crl: nothing verifies one.
        const checked = caDer
          ? await this.check(crl, caDer, servedNumber)
          : 'the tenant has no issuing CA, so its root publishes no root CRL';
        if (typeof checked === 'string') {
          this.logger.warn({ tenantId, crlNumber: crl.crl_number, reason: checked }, 'published CRL refused');
          await this.dataSource.query(
            `DELETE FROM ${this.line.pending} WHERE ${this.line.key} = $1 AND crl_number = $2 AND sha256 = $3`,
            [tenantId, crl.crl_number, crl.sha256],
          );
          continue;
        }
        await this.store(tenantId, crl, checked);
        break;
      }
    }
    if (waitingForCa && !this.stopped) setTimeout(() => this.copyPending(), CA_WAIT_RETRY_MS).unref();
  }

  /** The CRL to serve, or why it is refused. */
  private async check(crl: PendingCrl, caDer: Buffer, servedNumber: bigint): Promise<CheckedCrl | string> {
    const announced = BigInt(crl.crl_number);
    if (announced <= servedNumber)
      return `CRL number ${announced} is not higher than the served ${servedNumber}`;
    const der = await this.blobs.get(crl.blob_ref);
    // Expired or damaged hand-over: a newer CRL follows within half a CRL lifetime.
    if (der === undefined) return 'not retrievable from the blob store';
    if (createHash('sha256').update(der).digest('hex') !== crl.sha256.toLowerCase()) {
      return 'SHA-256 differs from the announced one';
    }
    const check = checkCrlIssuedBy(der, caDer);
    if (!check.issuedBy) return check.reason;
    const { crlNumber, thisUpdate, nextUpdate } = check.summary;
    if (crlNumber !== announced) return `CRL number ${crlNumber} is not the announced ${announced}`;
    return {
      der: Buffer.from(der.buffer, der.byteOffset, der.byteLength),
      crlNumber,
      thisUpdate,
      nextUpdate,
    };
  }

  /** Stores `checked` unless a newer one is stored already, and settles the pending ones up to it. */
  private async store(tenantId: string, crl: PendingCrl, checked: CheckedCrl): Promise<void> {
    const sha256 = crl.sha256.toLowerCase();
    const stored = await this.dataSource.transaction(async (manager) => {
      const newest: unknown[] = await manager.query(
        `INSERT INTO ${this.line.served} AS s (${this.line.key}, crl_number, this_update, next_update, der, sha256) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (${this.line.key}) DO UPDATE SET crl_number = EXCLUDED.crl_number, this_update = EXCLUDED.this_update,
           next_update = EXCLUDED.next_update, der = EXCLUDED.der, sha256 = EXCLUDED.sha256
         WHERE s.crl_number < EXCLUDED.crl_number
         RETURNING crl_number`,
        [tenantId, checked.crlNumber.toString(), checked.thisUpdate, checked.nextUpdate, checked.der, sha256],
      );
      // Only up to this one: a newer CRL announced meanwhile stays pending for the next round.
      await manager.query(
        `DELETE FROM ${this.line.pending} WHERE ${this.line.key} = $1 AND crl_number <= $2`,
        [tenantId, crl.crl_number],
      );
      return newest.length > 0;
    });
    const key = tenantId.toLowerCase();
    if (stored) {
      // Served from here at once, without reading the megabytes just written back.
      const copied = {
        der: checked.der,
        etag: `"${sha256}"`,
        thisUpdate: checked.thisUpdate,
        nextUpdate: checked.nextUpdate,
      };
      this.cache.set(key, { crl: copied, sha256 });
    } else {
      this.cache.delete(key);
    }
  }

  async find(tenantId: string): Promise<ServedCrl | undefined> {
    const key = parseTenantId(tenantId);
    if (!key) return undefined;
    const cached = this.cache.get(key);
    if (cached) {
      let current: { sha256: string }[];
      try {
        current = await this.dataSource.query(
          `SELECT sha256 FROM ${this.line.served} WHERE ${this.line.key} = $1`,
          [key],
        );
      } catch (error) {
        // The database is away or refuses the responder: the CRL this replica served last is
        // signed and still valid, so relying parties get it rather than a 503 (docs/security.md,
        // "Database failures"). Another replica may hold a newer one until the database is back.
        if (isDatabaseUnavailable(error) && cached.crl.nextUpdate.getTime() > Date.now()) return cached.crl;
        throw error;
      }
      if (current[0]?.sha256 === cached.sha256) return cached.crl;
    }
    const rows: { der: Buffer; sha256: string; this_update: Date; next_update: Date }[] =
      await this.dataSource.query(
        `SELECT der, sha256, this_update, next_update FROM ${this.line.served} WHERE ${this.line.key} = $1`,
        [key],
      );
    if (rows.length === 0) return undefined;
    const served = {
      der: rows[0].der,
      etag: `"${rows[0].sha256}"`,
      thisUpdate: rows[0].this_update,
      nextUpdate: rows[0].next_update,
    };
    // Unless a copy put a newer one in meanwhile.
    if (this.cache.get(key) === cached) {
      this.cache.set(key, { crl: served, sha256: rows[0].sha256 });
    }
    return served;
  }
}

/** Why an announcement cannot even be recorded (the bus is not trusted), or undefined. */
function malformedAnnouncement(payload: CrlPublishedPayload): string | undefined {
  const { tenantId, crlNumber, thisUpdate, nextUpdate, blobRef, sha256 } = payload ?? {};
  if (!isUuid(tenantId)) return 'tenantId is not a UUID';
  if (typeof crlNumber !== 'string' || !CRL_NUMBER.test(crlNumber)) return 'crlNumber is not a CRL number';
  if (typeof sha256 !== 'string' || !SHA256_HEX.test(sha256)) return 'sha256 is not a SHA-256 in hex';
  if (typeof blobRef !== 'string' || blobRef.length === 0 || blobRef.length > 1024)
    return 'blobRef is invalid';
  for (const time of [thisUpdate, nextUpdate]) {
    if (typeof time !== 'string' || Number.isNaN(Date.parse(time)))
      return 'thisUpdate/nextUpdate is not a time';
  }
  return undefined;
}

function groupByTenant(rows: PendingCrl[]): Map<string, PendingCrl[]> {
  const groups = new Map<string, PendingCrl[]>();
  for (const row of rows) {
    const group = groups.get(row.owner);
    if (group) group.push(row);
    else groups.set(row.owner, [row]);
  }
  return groups;
}
