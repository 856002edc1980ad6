import { CaInitializedPayload, CertificateRevokedPayload, EventEnvelope } from '@ca/contracts';
import { applyOnce } from '@ca/messaging';
import { Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { REVOCATION_SCHEMA } from '../revocation.schema';

/**
 * The revocation context's facts, fed by events: every tenant CA as a CRL issuer (from
 * `ca.initialized`) and every revoked serial (from `certificate.revoked`). Each event is applied
 * once; the caller then asks for a fresh CRL.
 */
export class RevocationLedger {
  private readonly logger = new Logger('RevocationLedger');

  constructor(private readonly dataSource: DataSource) {}

  async registerIssuer(event: EventEnvelope<CaInitializedPayload>): Promise<void> {
    const { tenantId, caId, certificateDer, notAfter } = event.payload;
    await applyOnce(this.dataSource, REVOCATION_SCHEMA, event, async (manager) => {
      await manager.query(
        `INSERT INTO revocation.crl_issuers (tenant_id, ca_id, ca_certificate_der, ca_not_after) VALUES ($1, $2, $3, $4)
         ON CONFLICT (tenant_id) DO NOTHING`,
        [tenantId, caId, Buffer.from(certificateDer, 'base64'), notAfter],
      );
    });
  }

  /**
   * Records a revoked serial under its tenant. Tenant isolation is checked here, in the service that
   * owns the entries (DESIGN security rules), not trusted to the producer: an event whose envelope
   * and payload name different tenants, or whose CA is not the tenant's CA (another tenant's
   * certificate under this tenant's id), is refused and changes no CRL. Returns whether it was recorded.
   */
  async recordRevocation(event: EventEnvelope<CertificateRevokedPayload>): Promise<boolean> {
    const { tenantId, caId, serialNumber, certificateId, revokedAt, reasonCode } = event.payload;
    let recorded = false;
    const fresh = await applyOnce(this.dataSource, REVOCATION_SCHEMA, event, async (manager) => {
      if (event.tenantId !== tenantId) return;
      const issuer: unknown[] = await manager.query(
        'SELECT 1 FROM revocation.crl_issuers WHERE tenant_id = $1 AND ca_id = $2',
        [tenantId, caId],
      );
      if (issuer.length === 0) return;
      await manager.query(
        `INSERT INTO revocation.revoked_certificates (tenant_id, serial_number, certificate_id, revocation_date, reason_code)
         VALUES ($1, $2, $3, $4, $5) ON CONFLICT (tenant_id, serial_number) DO NOTHING`,
        [tenantId, serialNumber, certificateId, revokedAt, reasonCode],
      );
      recorded = true;
    });
    if (fresh && !recorded) {
      this.logger.warn(
        { eventId: event.id, tenantId: event.tenantId, payloadTenantId: tenantId, caId },
        'certificate.revoked refused: not a certificate of this tenant CA',
      );
    }
    return recorded;
  }
}
