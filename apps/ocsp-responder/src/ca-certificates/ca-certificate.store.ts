import { createHash } from 'node:crypto';
import { CaInitializedPayload, EventEnvelope } from '@ca/contracts';
import { applyOnce } from '@ca/messaging';
import { DataSource } from 'typeorm';
import { OCSP_SCHEMA } from '../ocsp.schema';

export interface ServedCaCertificate {
  tenantId: string;
  der: Buffer;
  etag: string;
  lastModified: Date;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The responder's own copy of every tenant's CA certificate, fed by `ca.initialized`, so the
 * public surface answers without the issuance service. Reads are cached in memory: a CA
 * certificate never changes once published.
 */
export class CaCertificateStore {
  private readonly cache = new Map<string, ServedCaCertificate>();

  constructor(private readonly dataSource: DataSource) {}

  async apply(event: EventEnvelope<CaInitializedPayload>): Promise<void> {
    const { tenantId, caId, certificateDer, notAfter } = event.payload;
    await applyOnce(this.dataSource, OCSP_SCHEMA, event, async (manager) => {
      await manager.query(
        `INSERT INTO ocsp.ca_certificates (tenant_id, ca_id, certificate_der, not_after, published_at)
         VALUES ($1, $2, $3, $4, $5) ON CONFLICT (tenant_id) DO NOTHING`,
        [tenantId, caId, Buffer.from(certificateDer, 'base64'), notAfter, event.occurredAt],
      );
    });
  }

  /** The certificate if this replica has already read it (no query). */
  cached(tenantId: string): ServedCaCertificate | undefined {
    return this.cache.get(tenantId.toLowerCase());
  }

  async find(tenantId: string): Promise<ServedCaCertificate | undefined> {
    if (!UUID.test(tenantId)) return undefined;
    const key = tenantId.toLowerCase();
    const cached = this.cache.get(key);
    if (cached) return cached;
    const rows: { certificate_der: Buffer; published_at: Date }[] = await this.dataSource.query(
      'SELECT certificate_der, published_at FROM ocsp.ca_certificates WHERE tenant_id = $1',
      [key],
    );
    if (rows.length === 0) return undefined;
    const der = rows[0].certificate_der;
    const served = {
      tenantId: key,
      der,
      etag: `"${createHash('sha256').update(der).digest('base64url')}"`,
      lastModified: rows[0].published_at,
    };
    this.cache.set(key, served);
    return served;
  }
}
