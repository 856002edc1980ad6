import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { correctCaEntries } from '../ledger/ledger-correction';
import { CrlIssuerStore } from '../stores/crl-issuer.store';
import { CrlBuildLease } from './crl-build.lease';
import { CrlEntriesCache } from './crl-entries.cache';
import { CrlSigning } from './crl-signing';

/** How a CA's CRL builds are spaced (see CrlPublisher). */
export interface CrlPacing {
  /** Pause after a build, as a multiple of the time it took. */
  pauseFactor: number;
  /** Only a CRL of this many entries or more is paced; smaller ones cost milliseconds. */
  fromEntries: number;
}

const DEFAULT_PACING: CrlPacing = { pauseFactor: 1, fromEntries: 10_000 };

/** Injection token of a pacing other than the default (tests). */
export const CRL_PACING = Symbol('CRL_PACING');

/**
 * Builds, has signed and publishes the next CRL of one of a tenant's CAs that sign (or signed)
 * leaves (RFC 5280 5; each its own issuer, docs/api.md#add-an-issuing-ca): entries from the ledger,
 * the next CRLNumber, the signature from issuance (the CA key never comes here). Requests for
 * a CA are coalesced: while one build runs, further requests share one queued build, so a
 * burst of revocations costs two CRLs, not one each. For a large CRL the queued build also waits
 * until the previous one has been over for as long as it took (`CrlPacing`): a steady stream of
 * revocations into a CRL of 100,000 entries (megabytes to hash, hand over and store each time)
 * then keeps the process busy half the time, not all of it, and the OCSP path sharing it answers
 * the revocations within a second. Small CRLs are published without a pause.
 */
@Injectable()
export class CrlPublisher {
  private readonly logger = new Logger('CrlPublisher');
  private readonly running = new Map<string, Promise<void>>();
  private readonly queued = new Map<string, Promise<void>>();
  /** When each CA's last build ended and how long it took. */
  private readonly lastBuild = new Map<string, { endedAt: number; tookMs: number }>();
  /** How many entries each CA's last CRL had. */
  private readonly lastEntries = new Map<string, number>();

  constructor(
    private readonly signing: CrlSigning,
    private readonly issuers: CrlIssuerStore,
    private readonly entries: CrlEntriesCache,
    /** One builder per CA across replicas. */
    private readonly lease: CrlBuildLease,
    @Optional() @Inject(CRL_PACING) private readonly pacing: CrlPacing = DEFAULT_PACING,
  ) {}

  /** Resolves when a CRL of the CA that includes everything recorded before the call is published. */
  request(caId: string): Promise<void> {
    const queued = this.queued.get(caId);
    if (queued) return queued; // a build that has not started yet will include this change
    const running = this.running.get(caId);
    if (!running && this.pauseMs(caId) === 0) return this.start(caId);
    const next = (running ?? Promise.resolve())
      .then(() => new Promise((resolve) => setTimeout(resolve, this.pauseMs(caId))))
      .then(() => this.start(caId));
    this.queued.set(caId, next);
    return next;
  }

  async idle(): Promise<void> {
    while (this.running.size > 0 || this.queued.size > 0) {
      await Promise.all([...this.running.values(), ...this.queued.values()]);
    }
  }

  private pauseMs(caId: string): number {
    const last = this.lastBuild.get(caId);
    if (!last || (this.lastEntries.get(caId) ?? 0) < this.pacing.fromEntries) return 0;
    return Math.max(0, Math.ceil(last.endedAt + last.tookMs * this.pacing.pauseFactor - Date.now()));
  }

  private start(caId: string): Promise<void> {
    this.queued.delete(caId);
    const startedAt = Date.now();
    const build: Promise<void> = this.publish(caId)
      .then((published) => {
        // Another replica published this number first: make a newer one.
        if (!published) void this.request(caId);
      })
      .catch((err: unknown) =>
        this.logger.warn({ err, caId }, 'CRL publication failed; the scheduler retries'),
      )
      .finally(() => {
        const endedAt = Date.now();
        this.lastBuild.set(caId, { endedAt, tookMs: endedAt - startedAt });
        if (this.running.get(caId) === build) this.running.delete(caId);
      });
    this.running.set(caId, build);
    return build;
  }

  /** Returns false when another replica took this CRL number first. */
  private async publish(caId: string): Promise<boolean> {
    if (!(await this.lease.acquire(caId))) return true;
    try {
      return await this.publishHoldingLease(caId);
    } finally {
      await this.lease.release(caId).catch(() => undefined); // else it lapses
    }
  }

  private async publishHoldingLease(caId: string): Promise<boolean> {
    const issuer = await this.issuers.forBuild(caId);
    if (!issuer) return true;
    const { tenantId, nextCrlNumber: crlNumber } = issuer;
    const entries = await this.entries.read(caId);
    this.lastEntries.set(caId, entries.count);
    return this.signing.signAndPublish({
      tenantId,
      caId,
      issuerCertificateDer: new Uint8Array(issuer.certificateDer),
      crlNumber,
      entries,
      skipTo: (next) => this.issuers.skipTo(caId, crlNumber, next),
      store: async ({ issuers, crls }, { der, thisUpdate, nextUpdate }) => {
        // The number is taken under the row lock, so two replicas can never publish the same one.
        if (!(await issuers.takeNumber(caId, crlNumber))) return false;
        await crls.add({ tenantId, caId, crlNumber, thisUpdate, nextUpdate, entryCount: entries.count, der });
        return true;
      },
      correct: (tables, differences) => correctCaEntries(tables, tenantId, caId, differences),
    });
  }
}
