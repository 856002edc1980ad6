import { createHash } from 'node:crypto';
import { CaInitializedPayload, CaRevokedPayload, EventEnvelope } from '@ca/contracts';
import { applyOnce } from '@ca/messaging';
import { DataSource } from 'typeorm';
import { OCSP_SCHEMA } from '../ocsp.schema';

/** One published CA certificate with its HTTP validators. */
export interface PublishedCertificate {
  der: Buffer;
  etag: string;
  lastModified: Date;
}

export interface ServedCaCertificate {
  tenantId: string;
  /** The CA that signs leaves, CRLs and the OCSP signer: the issuing CA when there is one. */
  der: Buffer;
  /** ca.pem / ca.crt: the root, the trust anchor partners install. */
  root: PublishedCertificate;
  /** issuing-ca.pem / issuing-ca.crt; absent when the root signs leaves itself. */
  issuing?: PublishedCertificate;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The responder's own copy of every tenant's CA certificates, fed by `ca.initialized`, so the
 * public surface answers without the issuance service. Reads are cached in memory: a CA
 * certificate never changes once published. The row's `ca_id` and `certificate_der` are the CA
 * that signs leaves (docs/api.md#chains); `root_certificate_der` the root when that is another CA.
 */
export class CaCertificateStore {
  private readonly cache = new Map<string, ServedCaCertificate>();

  constructor(private readonly dataSource: DataSource) {}

  async apply(event: EventEnvelope<CaInitializedPayload>): Promise<void> {
    const { tenantId, caId, certificateDer, notAfter, issuingCaId, issuingCertificateDer, issuingNotAfter } =
      event.payload;
    const issuing = issuingCaId && issuingCertificateDer && issuingNotAfter;
    await applyOnce(this.dataSource, OCSP_SCHEMA, event, async (manager) => {
      await manager.query(
        `INSERT INTO ocsp.ca_certificates (tenant_id, ca_id, certificate_der, not_after, published_at, root_certificate_der)
         VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (tenant_id) DO NOTHING`,
        issuing
          ? [
              tenantId,
              issuingCaId,
              Buffer.from(issuingCertificateDer, 'base64'),
              issuingNotAfter,
              event.occurredAt,
              Buffer.from(certificateDer, 'base64'),
            ]
          : [tenantId, caId, Buffer.from(certificateDer, 'base64'), notAfter, event.occurredAt, null],
      );
    });
  }

  /**
   * Records the revocation of the tenant's issuing CA (docs/api.md#revoke-an-issuing-ca), once: only
   * for the issuing CA this row holds and the root that signed it, so a forged event for another
   * tenant's CA changes nothing.
   */
  async applyCaRevoked(event: EventEnvelope<CaRevokedPayload>): Promise<void> {
    const { tenantId, caId, revokedAt, reasonCode } = event.payload;
    await applyOnce(this.dataSource, OCSP_SCHEMA, event, async (manager) => {
      if (event.tenantId !== tenantId) return;
      await manager.query(
        `UPDATE ocsp.ca_certificates SET issuing_revoked_at = $3, issuing_reason_code = $4
          WHERE tenant_id = $1 AND ca_id = $2 AND root_certificate_der IS NOT NULL AND issuing_revoked_at IS NULL`,
        [tenantId, caId, revokedAt, reasonCode],
      );
    });
  }

  /**
   * Whether the tenant's issuing CA is revoked, read from the table every time (never cached): a
   * revocation through any replica is answered at once. Asked only for CertIDs under the root.
   */
  async issuingRevocation(tenantId: string): Promise<{ revokedAt: Date; reasonCode: number } | undefined> {
    const rows: { issuing_revoked_at: Date | null; issuing_reason_code: number | null }[] =
      await this.dataSource.query(
        'SELECT issuing_revoked_at, issuing_reason_code FROM ocsp.ca_certificates WHERE tenant_id = $1',
        [tenantId.toLowerCase()],
      );
    const row = rows[0];
    if (!row?.issuing_revoked_at) return undefined;
    return { revokedAt: row.issuing_revoked_at, reasonCode: row.issuing_reason_code ?? 0 };
  }

  /** The certificates if this replica has already read them (no query). */
  cached(tenantId: string): ServedCaCertificate | undefined {
    return this.cache.get(tenantId.toLowerCase());
  }

  async find(tenantId: string): Promise<ServedCaCertificate | undefined> {
    if (!UUID.test(tenantId)) return undefined;
    const key = tenantId.toLowerCase();
    const cached = this.cache.get(key);
    if (cached) return cached;
    const rows: { certificate_der: Buffer; root_certificate_der: Buffer | null; published_at: Date }[] =
      await this.dataSource.query(
        'SELECT certificate_der, root_certificate_der, published_at FROM ocsp.ca_certificates WHERE tenant_id = $1',
        [key],
      );
    if (rows.length === 0) return undefined;
    const { certificate_der: der, root_certificate_der: rootDer, published_at: publishedAt } = rows[0];
    const root = published(rootDer ?? der, publishedAt);
    const served: ServedCaCertificate = {
      tenantId: key,
      der,
      root,
      ...(rootDer ? { issuing: published(der, publishedAt) } : {}),
    };
    this.cache.set(key, served);
    return served;
  }
}

function published(der: Buffer, lastModified: Date): PublishedCertificate {
  return { der, etag: `"${createHash('sha256').update(der).digest('base64url')}"`, lastModified };
}
