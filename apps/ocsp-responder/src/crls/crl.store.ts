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

const CACHE_MS = 2_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The newest CRL of each tenant, copied into the responder's schema from `crl.published`, so it
 * is served while the other services are down. An older CRL never replaces a newer one.
 */
export class CrlStore {
  private readonly logger = new Logger('CrlStore');
  /** Short-lived: another replica may have stored a newer CRL (only one replica applies each event). */
  private readonly cache = new Map<string, { crl: ServedCrl; until: number }>();

  constructor(
    private readonly dataSource: DataSource,
    private readonly blobs: BlobStore,
  ) {}

  async apply(event: EventEnvelope<CrlPublishedPayload>): Promise<void> {
    const { tenantId, crlNumber, thisUpdate, nextUpdate, blobRef, sha256 } = event.payload;
    const der = await this.blobs.get(blobRef);
    if (!der || createHash('sha256').update(der).digest('hex') !== sha256) {
      // Expired or damaged hand-over: a newer CRL follows within half a CRL lifetime.
      this.logger.warn({ tenantId, crlNumber }, 'published CRL not retrievable; waiting for the next one');
      return;
    }
    await applyOnce(this.dataSource, OCSP_SCHEMA, event, async (manager) => {
      await manager.query(
        `INSERT INTO ocsp.crls (tenant_id, crl_number, this_update, next_update, der, sha256) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (tenant_id) DO UPDATE SET crl_number = EXCLUDED.crl_number, this_update = EXCLUDED.this_update,
           next_update = EXCLUDED.next_update, der = EXCLUDED.der, sha256 = EXCLUDED.sha256
         WHERE ocsp.crls.crl_number < EXCLUDED.crl_number`,
        [tenantId, crlNumber, thisUpdate, nextUpdate, Buffer.from(der), sha256],
      );
    });
    this.cache.delete(tenantId);
  }

  async find(tenantId: string): Promise<ServedCrl | undefined> {
    if (!UUID.test(tenantId)) return undefined;
    const key = tenantId.toLowerCase();
    const cached = this.cache.get(key);
    if (cached && cached.until > Date.now()) return cached.crl;
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
    this.cache.set(key, { crl: served, until: Date.now() + CACHE_MS });
    return served;
  }
}
