import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { BLOB_TTL_MS, BlobStore } from '@ca/messaging';
import { CrlOutboxStore } from '../stores/crl-outbox.store';

/**
 * A superseded CRL's blob is deleted once its successor has been out this long. The only reader,
 * the ocsp-responder, copies the newest announced CRL per CA (an older one it has not copied
 * yet is replaced by the newer, or read as missing and skipped), so by then nothing needs it.
 */
export const SUPERSEDED_CRL_BLOB_GRACE_MS = 2 * 60_000;

/** Injection token of a grace period other than SUPERSEDED_CRL_BLOB_GRACE_MS (tests). */
export const SUPERSEDED_CRL_BLOB_GRACE = Symbol('SUPERSEDED_CRL_BLOB_GRACE');

/** Sweeps run this often: a busy tenant publishes a CRL every few seconds, megabytes each. */
export const CRL_BLOB_SWEEP_INTERVAL_MS = 60_000;

/**
 * Deletes the hand-over blobs of superseded CRLs, found through revocation's own outbox
 * (`crl.published` rows: tenant, CA, blobRef, when published), instead of keeping each for the blob
 * store's 24 h TTL: a busy tenant's megabyte CRLs would otherwise pile up to gigabytes. The
 * newest CRL's blob of each CA stays until the TTL, for a responder that is down meanwhile.
 */
@Injectable()
export class CrlBlobSweeper {
  private readonly logger = new Logger('CrlBlobSweeper');
  /** Successors published up to this time have had their predecessors swept (this process's run). */
  private sweptUpTo?: Date;
  private timer?: NodeJS.Timeout;
  private running?: Promise<unknown>;

  constructor(
    private readonly outbox: CrlOutboxStore,
    private readonly blobs: BlobStore,
    @Optional()
    @Inject(SUPERSEDED_CRL_BLOB_GRACE)
    private readonly graceMs: number = SUPERSEDED_CRL_BLOB_GRACE_MS,
  ) {}

  start(intervalMs = CRL_BLOB_SWEEP_INTERVAL_MS): void {
    this.timer = setInterval(() => {
      this.running ??= this.sweep(new Date())
        .catch((err: unknown) => this.logger.warn({ err }, 'sweeping superseded CRL blobs failed; retrying'))
        .finally(() => (this.running = undefined));
    }, intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /**
   * Deletes the blobs of CRLs whose successor came out between the previous sweep's bound (at
   * first: the blob TTL ago, as older blobs are gone anyway) and the grace period before `now`;
   * returns how many. Each superseded CRL falls in exactly one sweep.
   */
  async sweep(now: Date): Promise<number> {
    const from = this.sweptUpTo ?? new Date(now.getTime() - BLOB_TTL_MS);
    const to = new Date(now.getTime() - this.graceMs);
    if (to <= from) return 0;
    const superseded = await this.outbox.supersededBlobs(from, to);
    for (const blobRef of superseded) await this.blobs.delete(blobRef);
    this.sweptUpTo = to;
    return superseded.length;
  }
}
