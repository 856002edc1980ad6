import { Logger } from '@nestjs/common';
import { EventType } from '@ca/contracts';
import { BLOB_TTL_MS, BlobStore } from '@ca/messaging';
import { DataSource } from 'typeorm';

/**
 * A superseded CRL's blob is deleted once its successor has been out this long. The only reader,
 * the ocsp-responder, copies the newest announced CRL per CA (an older one it has not copied
 * yet is replaced by the newer, or read as missing and skipped), so by then nothing needs it.
 */
export const SUPERSEDED_CRL_BLOB_GRACE_MS = 2 * 60_000;

/** Sweeps run this often: a busy tenant publishes a CRL every few seconds, megabytes each. */
export const CRL_BLOB_SWEEP_INTERVAL_MS = 60_000;

/**
 * Deletes the hand-over blobs of superseded CRLs, found through revocation's own outbox
 * (`crl.published` rows: tenant, CA, blobRef, when published), instead of keeping each for the blob
 * store's 24 h TTL: a busy tenant's megabyte CRLs would otherwise pile up to gigabytes. The
 * newest CRL's blob of each CA stays until the TTL, for a responder that is down meanwhile.
 */
export class CrlBlobSweeper {
  private readonly logger = new Logger('CrlBlobSweeper');
  /** Successors published up to this time have had their predecessors swept (this process's run). */
  private sweptUpTo?: Date;
  private timer?: NodeJS.Timeout;
  private running?: Promise<unknown>;

  constructor(
    private readonly dataSource: DataSource,
    private readonly blobs: BlobStore,
    private readonly graceMs = SUPERSEDED_CRL_BLOB_GRACE_MS,
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
    const superseded: { blob_ref: string }[] = await this.dataSource.query(
      `SELECT o.payload->>'blobRef' AS blob_ref FROM revocation.outbox o
         JOIN LATERAL (SELECT n.published_at FROM revocation.outbox n
                        WHERE n.type = $1 AND n.tenant_id = o.tenant_id AND n.seq > o.seq
                          AND n.payload->>'issuer' IS NOT DISTINCT FROM o.payload->>'issuer'
                          AND n.payload->>'caId' IS NOT DISTINCT FROM o.payload->>'caId'
                        ORDER BY n.seq LIMIT 1) successor ON true
        WHERE o.type = $1 AND successor.published_at > $2 AND successor.published_at <= $3`,
      [EventType.CrlPublished, from, to],
    );
    for (const crl of superseded) await this.blobs.delete(crl.blob_ref);
    this.sweptUpTo = to;
    return superseded.length;
  }
}
