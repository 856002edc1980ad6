import { CaInitializedPayload, CertificateRevokedPayload, EventEnvelope } from '@ca/contracts';
import { applyOnce } from '@ca/messaging';
import { DataSource } from 'typeorm';
import { REVOCATION_SCHEMA } from '../revocation.schema';

/**
 * The revocation context's facts, fed by events: every tenant CA as a CRL issuer (from
 * `ca.initialized`) and every revoked serial (from `certificate.revoked`). Each event is applied
 * once; the caller then asks for a fresh CRL.
 */
export class RevocationLedger {
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

  async recordRevocation(event: EventEnvelope<CertificateRevokedPayload>): Promise<void> {
    const { tenantId, serialNumber, certificateId, revokedAt, reasonCode } = event.payload;
    await applyOnce(this.dataSource, REVOCATION_SCHEMA, event, async (manager) => {
      await manager.query(
        `INSERT INTO revocation.revoked_certificates (tenant_id, serial_number, certificate_id, revocation_date, reason_code)
         VALUES ($1, $2, $3, $4, $5) ON CONFLICT (tenant_id, serial_number) DO NOTHING`,
        [tenantId, serialNumber, certificateId, revokedAt, reasonCode],
      );
    });
  }
}
