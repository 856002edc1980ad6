import { createHash } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { CrlPublishedPayload, EventEnvelope } from '@ca/contracts';
import { BlobStore, applyOnce } from '@ca/messaging';
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
  until: number;
}

const CACHE_MS = 2_000;
/** After a failed copy round (database or blob store unreachable), the next attempt. */
const COPY_RETRY_MS = 1_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The newest CRL of each tenant, copied into the responder's schema from `crl.published`, so it
 * is served while the other services are down. An older CRL never replaces a newer one.
 */
export class CrlStore {
  private readonly logger = new Logger('CrlStore');
  /**
   * Revalidated after CACHE_MS: another replica may have stored a newer CRL (only one replica
   * applies each event). The check reads the digest only; the megabytes only when it changed.
   */
  private readonly cache = new Map<string, CachedCrl>();
  private copying: Promise<void> | undefined;
  private copyAgain = false;
  private stopped = false;

  constructor(
    private readonly dataSource: DataSource,
    private readonly blobs: BlobStore,
  ) {}

  /**
   * Records the announced CRL as pending (newest per tenant) and returns: the copy of a CRL of
   * megabytes happens off the event consumer (`copyPending`), so the status changes queued behind
   * this event are applied without waiting for it (issue #8: OCSP within 1 s of a revocation).
   * Pending rows are durable: a copy cut short by a crash is done after the restart.
   */
  async apply(event: EventEnvelope<CrlPublishedPayload>): Promise<void> {
    const { tenantId, crlNumber, thisUpdate, nextUpdate, blobRef, sha256 } = event.payload;
    await applyOnce(this.dataSource, OCSP_SCHEMA, event, async (manager) => {
      await manager.query(
        `INSERT INTO ocsp.pending_crls (tenant_id, crl_number, this_update, next_update, blob_ref, sha256)
         VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (tenant_id) DO UPDATE SET crl_number = EXCLUDED.crl_number, this_update = EXCLUDED.this_update,
           next_update = EXCLUDED.next_update, blob_ref = EXCLUDED.blob_ref, sha256 = EXCLUDED.sha256
         WHERE ocsp.pending_crls.crl_number < EXCLUDED.crl_number`,
        [tenantId, crlNumber, thisUpdate, nextUpdate, blobRef, sha256],
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

  private async copyRound(): Promise<void> {
    const pending: {
      tenant_id: string;
      crl_number: string;
      this_update: Date;
      next_update: Date;
      blob_ref: string;
      sha256: string;
    }[] = await this.dataSource.query(
      'SELECT tenant_id, crl_number, this_update, next_update, blob_ref, sha256 FROM ocsp.pending_crls',
    );
    for (const crl of pending) {
      if (this.stopped) return;
      const { tenant_id: tenantId, crl_number: crlNumber, sha256 } = crl;
      const der = await this.blobs.get(crl.blob_ref);
      const usable = der !== undefined && createHash('sha256').update(der).digest('hex') === sha256;
      if (!usable) {
        // Expired or damaged hand-over: a newer CRL follows within half a CRL lifetime.
        this.logger.warn({ tenantId, crlNumber }, 'published CRL not retrievable; waiting for the next one');
      }
      const served = usable ? Buffer.from(der.buffer, der.byteOffset, der.byteLength) : undefined;
      const stored = await this.dataSource.transaction(async (manager) => {
        let newest: unknown[] = [];
        if (served) {
          newest = await manager.query(
            `INSERT INTO ocsp.crls (tenant_id, crl_number, this_update, next_update, der, sha256) VALUES ($1, $2, $3, $4, $5, $6)
             ON CONFLICT (tenant_id) DO UPDATE SET crl_number = EXCLUDED.crl_number, this_update = EXCLUDED.this_update,
               next_update = EXCLUDED.next_update, der = EXCLUDED.der, sha256 = EXCLUDED.sha256
             WHERE ocsp.crls.crl_number < EXCLUDED.crl_number
             RETURNING crl_number`,
            [tenantId, crlNumber, crl.this_update, crl.next_update, served, sha256],
          );
        }
        // Only this one: a newer CRL announced meanwhile stays pending for the next round.
        await manager.query('DELETE FROM ocsp.pending_crls WHERE tenant_id = $1 AND crl_number = $2', [
          tenantId,
          crlNumber,
        ]);
        return newest.length > 0;
      });
      const key = tenantId.toLowerCase();
      if (stored && served) {
        // Served from here at once, without reading the megabytes just written back.
        const copied = {
          der: served,
          etag: `"${sha256}"`,
          thisUpdate: crl.this_update,
          nextUpdate: crl.next_update,
        };
        this.cache.set(key, { crl: copied, sha256, until: Date.now() + CACHE_MS });
      } else {
        this.cache.delete(key);
      }
    }
  }

  async find(tenantId: string): Promise<ServedCrl | undefined> {
    if (!UUID.test(tenantId)) return undefined;
    const key = tenantId.toLowerCase();
    const cached = this.cache.get(key);
    if (cached && cached.until > Date.now()) return cached.crl;
    if (cached) {
      const current: { sha256: string }[] = await this.dataSource.query(
        'SELECT sha256 FROM ocsp.crls WHERE tenant_id = $1',
        [key],
      );
      if (current[0]?.sha256 === cached.sha256) {
        cached.until = Date.now() + CACHE_MS;
        return cached.crl;
      }
    }
    const rows: { der: Buffer; sha256: string; this_update: Date; next_update: Date }[] =
      await this.dataSource.query(
        'SELECT der, sha256, this_update, next_update FROM ocsp.crls WHERE tenant_id = $1',
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
      this.cache.set(key, { crl: served, sha256: rows[0].sha256, until: Date.now() + CACHE_MS });
    }
    return served;
  }
}
