import {
  CaInitializedPayload,
  CaRevokedPayload,
  CertificateHoldReleasedPayload,
  CertificateRevokedPayload,
  EventEnvelope,
  RevocationReasonCodes,
} from '@ca/contracts';
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

  /**
   * Registers the tenant's CA that signs leaves, whose CRL `/crl` serves (docs/api.md#chains): the
   * issuing CA when the tenant has one, else its root.
   */
  async registerIssuer(event: EventEnvelope<CaInitializedPayload>): Promise<void> {
    const { tenantId, caId, certificateDer, notAfter } = leafSigningCaOf(event.payload);
    await applyOnce(this.dataSource, REVOCATION_SCHEMA, event, async (manager) => {
      await manager.query(
        `INSERT INTO revocation.crl_issuers (tenant_id, ca_id, ca_certificate_der, ca_not_after) VALUES ($1, $2, $3, $4)
         ON CONFLICT (tenant_id) DO NOTHING`,
        [tenantId, caId, Buffer.from(certificateDer, 'base64'), notAfter],
      );
      // With an issuing CA, the root issues a CRL of its own: root.crl (docs/api.md#distribution-points).
      const { payload } = event;
      if (payload.issuingCaId && payload.caId !== caId) {
        await manager.query(
          `INSERT INTO revocation.root_crl_issuers (tenant_id, ca_id, ca_certificate_der, ca_not_after)
           VALUES ($1, $2, $3, $4) ON CONFLICT (tenant_id) DO NOTHING`,
          [tenantId, payload.caId, Buffer.from(payload.certificateDer, 'base64'), payload.notAfter],
        );
      }
    });
  }

  /**
   * Records a revoked serial under its tenant. Tenant isolation is checked here, in the service that
   * owns the entries (docs/architecture.md#bounded-contexts), not trusted to the producer: an event whose envelope
   * and payload name different tenants, or whose CA is not the tenant's CA (another tenant's
   * certificate under this tenant's id), is refused and changes no CRL. Returns whether it added an
   * entry (a serial already listed, or a replayed event, adds none).
   */
  async recordRevocation(event: EventEnvelope<CertificateRevokedPayload>): Promise<boolean> {
    const { tenantId, caId, serialNumber, certificateId, revokedAt, reasonCode } = event.payload;
    let matched = false;
    let recorded = false;
    const fresh = await applyOnce(this.dataSource, REVOCATION_SCHEMA, event, async (manager) => {
      if (event.tenantId !== tenantId) return;
      const issuer: unknown[] = await manager.query(
        'SELECT 1 FROM revocation.crl_issuers WHERE tenant_id = $1 AND ca_id = $2',
        [tenantId, caId],
      );
      if (issuer.length === 0) return;
      matched = true;
      const inserted: unknown[] = await manager.query(
        `INSERT INTO revocation.revoked_certificates (tenant_id, serial_number, certificate_id, revocation_date, reason_code)
         VALUES ($1, $2, $3, $4, $5) ON CONFLICT (tenant_id, serial_number) DO NOTHING RETURNING 1`,
        [tenantId, serialNumber, certificateId, revokedAt, reasonCode],
      );
      recorded = inserted.length > 0;
    });
    if (fresh && !matched) {
      this.logger.warn(
        { eventId: event.id, tenantId: event.tenantId, payloadTenantId: tenantId, caId },
        'certificate.revoked refused: not a certificate of this tenant CA',
      );
    }
    return recorded;
  }

  /**
   * Records a revoked issuing CA for its root's CRL (root.crl, docs/api.md#revoke-an-issuing-ca).
   * Checked like a leaf's revocation: envelope and payload name one tenant, and the issuer named is
   * that tenant's root. Returns whether it added an entry.
   */
  async recordCaRevocation(event: EventEnvelope<CaRevokedPayload>): Promise<boolean> {
    const { tenantId, caId, issuerCaId, serialNumber, revokedAt, reasonCode } = event.payload;
    let matched = false;
    let recorded = false;
    const fresh = await applyOnce(this.dataSource, REVOCATION_SCHEMA, event, async (manager) => {
      if (event.tenantId !== tenantId) return;
      const inserted: unknown[] = await manager.query(
        `INSERT INTO revocation.revoked_cas (tenant_id, serial_number, ca_id, revocation_date, reason_code)
         SELECT tenant_id, $3, $4, $5, $6 FROM revocation.root_crl_issuers WHERE tenant_id = $1 AND ca_id = $2
         ON CONFLICT (tenant_id, serial_number) DO NOTHING RETURNING 1`,
        [tenantId, issuerCaId, serialNumber, caId, revokedAt, reasonCode],
      );
      const root: unknown[] = await manager.query(
        'SELECT 1 FROM revocation.root_crl_issuers WHERE tenant_id = $1 AND ca_id = $2',
        [tenantId, issuerCaId],
      );
      matched = root.length > 0;
      recorded = inserted.length > 0;
    });
    if (fresh && !matched) {
      this.logger.warn(
        { eventId: event.id, tenantId: event.tenantId, payloadTenantId: tenantId, issuerCaId },
        'ca.revoked refused: not an issuing CA under this tenant root',
      );
    }
    return recorded;
  }

  /**
   * Drops the entry of a released certificateHold: a full CRL simply stops listing it (RFC 5280
   * 5.3.1). Only the hold itself goes (same tenant CA, certificate, reason 6 and revocation date),
   * so a late or forged event cannot remove any other revocation. Counting the removal in
   * `crl_issuers.entries_removed`, in the same transaction, makes every replica's CrlEntriesCache
   * read the tenant's entries again. Returns whether an entry was removed.
   */
  async releaseHold(event: EventEnvelope<CertificateHoldReleasedPayload>): Promise<boolean> {
    const { tenantId, caId, serialNumber, certificateId, heldSince } = event.payload;
    let removed = false;
    const fresh = await applyOnce(this.dataSource, REVOCATION_SCHEMA, event, async (manager) => {
      if (event.tenantId !== tenantId) return;
      const deleted: [unknown[], number] = await manager.query(
        `DELETE FROM revocation.revoked_certificates r USING revocation.crl_issuers i
          WHERE r.tenant_id = $1 AND r.serial_number = $2 AND r.certificate_id = $3
            AND r.reason_code = $4 AND r.revocation_date = $5 AND i.tenant_id = r.tenant_id AND i.ca_id = $6`,
        [tenantId, serialNumber, certificateId, RevocationReasonCodes.CertificateHold, heldSince, caId],
      );
      if (deleted[1] === 0) return;
      await manager.query(
        'UPDATE revocation.crl_issuers SET entries_removed = entries_removed + 1 WHERE tenant_id = $1',
        [tenantId],
      );
      removed = true;
    });
    if (fresh && !removed) {
      this.logger.warn(
        { eventId: event.id, tenantId: event.tenantId, payloadTenantId: tenantId, caId },
        'certificate.hold-released changed nothing: no such hold of this tenant CA',
      );
    }
    return removed;
  }
}

/** The CA of a `ca.initialized` that signs leaves: the issuing CA when the event names one. */
function leafSigningCaOf(payload: CaInitializedPayload): {
  tenantId: string;
  caId: string;
  certificateDer: string;
  notAfter: string;
} {
  const { tenantId, issuingCaId, issuingCertificateDer, issuingNotAfter } = payload;
  if (issuingCaId && issuingCertificateDer && issuingNotAfter) {
    return { tenantId, caId: issuingCaId, certificateDer: issuingCertificateDer, notAfter: issuingNotAfter };
  }
  return payload;
}
