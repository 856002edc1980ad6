import { createHash } from 'node:crypto';
import { Logger } from '@nestjs/common';
import {
  CrlPublishedPayload,
  EventType,
  IssuanceApi,
  IssuancePattern,
  lastSignedCrlNumber,
} from '@ca/contracts';
import { BlobStore, OutboxRelay, RpcClient, recordEvent } from '@ca/messaging';
import { assembleCertificateList, backdatedStart, encodeTbsCertList } from '@ca/pki';
import { DataSource } from 'typeorm';
import { REVOCATION_SCHEMA } from '../revocation.schema';
import { CrlBuildLease } from './crl-build.lease';
import { CrlEntriesCache } from './crl-entries.cache';

/** How a tenant's CRL builds are spaced (see CrlPublisher). */
export interface CrlPacing {
  /** Pause after a build, as a multiple of the time it took. */
  pauseFactor: number;
  /** Only a CRL of this many entries or more is paced; smaller ones cost milliseconds. */
  fromEntries: number;
}

const DEFAULT_PACING: CrlPacing = { pauseFactor: 1, fromEntries: 10_000 };

/** How long a CRL is valid (nextUpdate − thisUpdate); it is re-signed at half of that. */
export const CRL_VALIDITY_MS = 24 * 60 * 60_000;

interface IssuerRow {
  tenant_id: string;
  ca_certificate_der: Buffer;
  next_crl_number: string;
}

/**
 * Builds, has signed and publishes a tenant's next CRL (RFC 5280 5): entries from the ledger,
 * the next CRLNumber, the signature from issuance (the CA key never comes here). Requests for
 * a tenant are coalesced: while one build runs, further requests share one queued build, so a
 * burst of revocations costs two CRLs, not one each. For a large CRL the queued build also waits
 * until the previous one has been over for as long as it took (`CrlPacing`): a steady stream of
 * revocations into a CRL of 100,000 entries (megabytes to hash, hand over and store each time)
 * then keeps the process busy half the time, not all of it, and the OCSP path sharing it answers
 * the revocations within a second. Small CRLs are published without a pause.
 */
export class CrlPublisher {
  private readonly logger = new Logger('CrlPublisher');
  private readonly running = new Map<string, Promise<void>>();
  private readonly queued = new Map<string, Promise<void>>();
  private readonly entries: CrlEntriesCache;
  /** One builder per tenant across replicas. */
  private readonly lease: CrlBuildLease;
  /** When each tenant's last build ended and how long it took. */
  private readonly lastBuild = new Map<string, { endedAt: number; tookMs: number }>();
  /** How many entries each tenant's last CRL had. */
  private readonly lastEntries = new Map<string, number>();

  constructor(
    private readonly dataSource: DataSource,
    private readonly issuance: RpcClient<IssuanceApi>,
    private readonly blobs: BlobStore,
    private readonly relay: OutboxRelay,
    private readonly pacing: CrlPacing = DEFAULT_PACING,
  ) {
    this.entries = new CrlEntriesCache(dataSource);
    this.lease = new CrlBuildLease(dataSource);
  }

  /** Resolves when a CRL that includes everything recorded before the call is published. */
  request(tenantId: string): Promise<void> {
    const queued = this.queued.get(tenantId);
    if (queued) return queued; // a build that has not started yet will include this change
    const running = this.running.get(tenantId);
    if (!running && this.pauseMs(tenantId) === 0) return this.start(tenantId);
    const next = (running ?? Promise.resolve())
      .then(() => new Promise((resolve) => setTimeout(resolve, this.pauseMs(tenantId))))
      .then(() => this.start(tenantId));
    this.queued.set(tenantId, next);
    return next;
  }

  async idle(): Promise<void> {
    while (this.running.size > 0 || this.queued.size > 0) {
      await Promise.all([...this.running.values(), ...this.queued.values()]);
    }
  }

  private pauseMs(tenantId: string): number {
    const last = this.lastBuild.get(tenantId);
    if (!last || (this.lastEntries.get(tenantId) ?? 0) < this.pacing.fromEntries) return 0;
    return Math.max(0, Math.ceil(last.endedAt + last.tookMs * this.pacing.pauseFactor - Date.now()));
  }

  private start(tenantId: string): Promise<void> {
    this.queued.delete(tenantId);
    const startedAt = Date.now();
    const build: Promise<void> = this.publish(tenantId)
      .then((published) => {
        // Another replica published this number first: make a newer one.
        if (!published) void this.request(tenantId);
      })
      .catch((err: unknown) =>
        this.logger.warn({ err, tenantId }, 'CRL publication failed; the scheduler retries'),
      )
      .finally(() => {
        const endedAt = Date.now();
        this.lastBuild.set(tenantId, { endedAt, tookMs: endedAt - startedAt });
        if (this.running.get(tenantId) === build) this.running.delete(tenantId);
      });
    this.running.set(tenantId, build);
    return build;
  }

  /** Returns false when another replica took this CRL number first. */
  private async publish(tenantId: string): Promise<boolean> {
    if (!(await this.lease.acquire(tenantId))) return true;
    try {
      return await this.publishHoldingLease(tenantId);
    } finally {
      await this.lease.release(tenantId).catch(() => undefined); // else it lapses
    }
  }

  private async publishHoldingLease(tenantId: string): Promise<boolean> {
    const issuers: IssuerRow[] = await this.dataSource.query(
      'SELECT tenant_id, ca_certificate_der, next_crl_number FROM revocation.crl_issuers WHERE tenant_id = $1',
      [tenantId],
    );
    if (issuers.length === 0) return true;
    const issuer = issuers[0];
    const crlNumber = BigInt(issuer.next_crl_number);
    // Backdated a minute, as certificates are: a relying party whose clock runs behind would
    // otherwise refuse a fresh CRL whose thisUpdate (RFC 5280 5.1.2.4) is in its future.
    const thisUpdate = backdatedStart(new Date());
    const nextUpdate = new Date(thisUpdate.getTime() + CRL_VALIDITY_MS);
    const entries = await this.entries.read(tenantId);
    this.lastEntries.set(tenantId, entries.count);
    const tbs = encodeTbsCertList({
      issuerCertificateDer: new Uint8Array(issuer.ca_certificate_der),
      crlNumber,
      thisUpdate,
      nextUpdate,
      entries,
    });
    const tbsBlobRef = await this.blobs.put(tbs);
    let signature: string;
    try {
      ({ signature } = await this.issuance
        .send(IssuancePattern.SignCrl, { tenantId, tbsBlobRef })
        .finally(() => this.blobs.delete(tbsBlobRef)));
    } catch (error) {
      // Issuance signed this number before, for a CRL never stored here (a crash between its
      // signature and our commit): move past it and build again at once (RFC 5280 5.2.3 allows gaps).
      const lastSigned = lastSignedCrlNumber(error);
      if (lastSigned === undefined || lastSigned < crlNumber) throw error;
      await this.dataSource.query(
        `UPDATE revocation.crl_issuers SET next_crl_number = $3
          WHERE tenant_id = $1 AND next_crl_number = $2`,
        [tenantId, crlNumber.toString(), (lastSigned + 1n).toString()],
      );
      return false;
    }
    const der = assembleCertificateList(tbs, Buffer.from(signature, 'base64'));
    const blobRef = await this.blobs.put(der);
    const stored = await this.dataSource.transaction(async (manager) => {
      // The number is taken under the row lock, so two replicas can never publish the same one.
      const updated: [unknown[], number] = await manager.query(
        `UPDATE revocation.crl_issuers SET next_crl_number = next_crl_number + 1
          WHERE tenant_id = $1 AND next_crl_number = $2`,
        [tenantId, crlNumber.toString()],
      );
      if (updated[1] !== 1) return false;
      await manager.query(
        `INSERT INTO revocation.crls (tenant_id, crl_number, this_update, next_update, entry_count, der)
         VALUES ($1, $2, $3, $4, $5, $6)`,
        [tenantId, crlNumber.toString(), thisUpdate, nextUpdate, entries.count, Buffer.from(der)],
      );
      await manager.query(`DELETE FROM revocation.crls WHERE tenant_id = $1 AND crl_number < $2`, [
        tenantId,
        (crlNumber - 2n).toString(),
      ]);
      await recordEvent<CrlPublishedPayload>(manager, REVOCATION_SCHEMA, EventType.CrlPublished, {
        tenantId,
        crlNumber: crlNumber.toString(),
        thisUpdate: thisUpdate.toISOString(),
        nextUpdate: nextUpdate.toISOString(),
        blobRef,
        sha256: createHash('sha256').update(der).digest('hex'),
      });
      return true;
    });
    if (!stored) {
      await this.blobs.delete(blobRef);
      return false;
    }
    this.relay.nudge();
    return true;
  }
}
