import {
  CaInitializedPayload,
  CaRevokedPayload,
  CertificateHoldReleasedPayload,
  CertificateRevokedPayload,
  EventEnvelope,
  IssuingCaAddedPayload,
  RevocationReasonCodes,
} from '@ca/contracts';
import { applyOnce, applyOnceEach } from '@ca/messaging';
import { Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { REVOCATION_SCHEMA } from '../revocation.schema';

/**
 * Which CRL a recorded `ca.revoked` changed: the separate root CRL (root.crl), or the one CRL of a
 * root that signed leaves before an issuing CA was added under it.
 */
export type CaRevocationRecorded = { rootCrl: true } | { rootCrl: false; caId: string };

/**
 * The revocation context's facts, fed by events: every tenant CA that signs or signed leaves as a
 * CRL issuer (from `ca.initialized` and `ca.issuing-added`) and every revoked serial under the CA
 * that issued it (from `certificate.revoked`). Each event is applied once; the caller then asks
 * for a fresh CRL of that CA.
 */
export class RevocationLedger {
  private readonly logger = new Logger('RevocationLedger');

  constructor(private readonly dataSource: DataSource) {}

  /**
   * Registers the tenant's CA that signs leaves, whose CRL `/crl` serves (docs/api.md#chains): the
   * issuing CA when the tenant has one, else its root. Returns that CA's id.
   */
  async registerIssuer(event: EventEnvelope<CaInitializedPayload>): Promise<string> {
    const { tenantId, caId, certificateDer, notAfter } = leafSigningCaOf(event.payload);
    await applyOnce(this.dataSource, REVOCATION_SCHEMA, event, async (manager) => {
      await manager.query(
        `INSERT INTO revocation.crl_issuers (tenant_id, ca_id, ca_certificate_der, ca_not_after) VALUES ($1, $2, $3, $4)
         ON CONFLICT (ca_id) DO NOTHING`,
        [tenantId, caId, Buffer.from(certificateDer, 'base64'), notAfter],
      );
      // With an issuing CA, the root issues a CRL of its own: root.crl (docs/api.md#distribution-points);
      // not a corporate root, whose key is not here (docs/api.md#external-root).
      const { payload } = event;
      if (payload.issuingCaId && payload.caId !== caId && !payload.externalRoot) {
        await manager.query(
          `INSERT INTO revocation.root_crl_issuers (tenant_id, ca_id, ca_certificate_der, ca_not_after)
           VALUES ($1, $2, $3, $4) ON CONFLICT (tenant_id) DO NOTHING`,
          [tenantId, payload.caId, Buffer.from(payload.certificateDer, 'base64'), payload.notAfter],
        );
      }
    });
    return caId;
  }

  /**
   * Registers an issuing CA added later (docs/api.md#add-an-issuing-ca) as a CRL issuer of its own;
   * the CA it replaces stays one, for the leaves it signed. Returns whether it is registered (an
   * event whose envelope and payload name different tenants is refused).
   */
  async registerAddedIssuer(event: EventEnvelope<IssuingCaAddedPayload>): Promise<boolean> {
    const { tenantId, caId, certificateDer, notAfter } = event.payload;
    if (event.tenantId !== tenantId) {
      this.logger.warn({ eventId: event.id, tenantId: event.tenantId, caId }, 'ca.issuing-added refused');
      return false;
    }
    await applyOnce(this.dataSource, REVOCATION_SCHEMA, event, async (manager) => {
      await manager.query(
        `INSERT INTO revocation.crl_issuers (tenant_id, ca_id, ca_certificate_der, ca_not_after) VALUES ($1, $2, $3, $4)
         ON CONFLICT (ca_id) DO NOTHING`,
        [tenantId, caId, Buffer.from(certificateDer, 'base64'), notAfter],
      );
    });
    return true;
  }

  /**
   * Records a revoked serial under the CA that issued it (its CRL, RFC 5280 5.1.2.3). Tenant isolation is checked here, in the service that
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
        `INSERT INTO revocation.revoked_certificates (tenant_id, ca_id, serial_number, certificate_id, revocation_date, reason_code)
         VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (ca_id, serial_number) DO NOTHING RETURNING 1`,
        [tenantId, caId, serialNumber, certificateId, revokedAt, reasonCode],
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
   * recordRevocation for a run of `certificate.revoked` events (a bulk revocation arrives as
   * thousands in a row), in one transaction of a few statements whatever its length: one inbox
   * insert, one look-up of the CAs named, one insert of the entries. Each event is still checked on
   * its own (envelope and payload name one tenant, the CA is that tenant's). Returns the CAs that
   * got a new entry (their CRLs to build once, not once per revocation).
   */
  async recordRevocations(events: readonly EventEnvelope<CertificateRevokedPayload>[]): Promise<string[]> {
    const changed = new Set<string>();
    const refused: EventEnvelope<CertificateRevokedPayload>[] = [];
    await applyOnceEach(this.dataSource, REVOCATION_SCHEMA, events, async (manager, fresh) => {
      const named = fresh.filter((event) => event.tenantId === event.payload.tenantId);
      const issuers: { tenant_id: string; ca_id: string }[] =
        named.length === 0
          ? []
          : await manager.query(
              `SELECT tenant_id::text, ca_id::text FROM revocation.crl_issuers WHERE ca_id = ANY($1::uuid[])`,
              [[...new Set(named.map((event) => String(event.payload.caId)))]],
            );
      const ours = new Set(issuers.map((row) => `${row.tenant_id.toLowerCase()}:${row.ca_id.toLowerCase()}`));
      const accepted = named.filter((event) =>
        ours.has(
          `${String(event.payload.tenantId).toLowerCase()}:${String(event.payload.caId).toLowerCase()}`,
        ),
      );
      refused.push(...fresh.filter((event) => !accepted.includes(event)));
      if (accepted.length === 0) return;
      const rows: { ca_id: string }[] = await manager.query(
        `INSERT INTO revocation.revoked_certificates (tenant_id, ca_id, serial_number, certificate_id, revocation_date, reason_code)
         SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::uuid[], $5::timestamptz[], $6::int[])
         ON CONFLICT (ca_id, serial_number) DO NOTHING RETURNING ca_id::text`,
        [
          accepted.map((event) => event.payload.tenantId),
          accepted.map((event) => event.payload.caId),
          accepted.map((event) => event.payload.serialNumber),
          accepted.map((event) => event.payload.certificateId),
          accepted.map((event) => event.payload.revokedAt),
          accepted.map((event) => event.payload.reasonCode),
        ],
      );
      for (const row of rows) changed.add(row.ca_id);
    });
    for (const event of refused) {
      this.logger.warn(
        {
          eventId: event.id,
          tenantId: event.tenantId,
          payloadTenantId: event.payload.tenantId,
          caId: event.payload.caId,
        },
        'certificate.revoked refused: not a certificate of this tenant CA',
      );
    }
    return [...changed];
  }

  /**
   * Records a revoked issuing CA on its root's CRL (docs/api.md#revoke-an-issuing-ca): root.crl,
   * or, for a root that signed leaves before an issuing CA was added under it, that root's one CRL
   * (RFC 5280 5.2/5.3: a CA issues one complete CRL for everything it certified). Checked like a
   * leaf's revocation: envelope and payload name one tenant, and the issuer named is that tenant's
   * root. Returns which CRL got a new entry, if any.
   */
  async recordCaRevocation(
    event: EventEnvelope<CaRevokedPayload>,
  ): Promise<CaRevocationRecorded | undefined> {
    const { tenantId, caId, issuerCaId, serialNumber, revokedAt, reasonCode } = event.payload;
    let matched = false;
    let recorded: CaRevocationRecorded | undefined;
    const fresh = await applyOnce(this.dataSource, REVOCATION_SCHEMA, event, async (manager) => {
      if (event.tenantId !== tenantId) return;
      const root: unknown[] = await manager.query(
        'SELECT 1 FROM revocation.root_crl_issuers WHERE tenant_id = $1 AND ca_id = $2',
        [tenantId, issuerCaId],
      );
      if (root.length > 0) {
        matched = true;
        const inserted: unknown[] = await manager.query(
          `INSERT INTO revocation.revoked_cas (tenant_id, serial_number, ca_id, revocation_date, reason_code)
           VALUES ($1, $2, $3, $4, $5) ON CONFLICT (tenant_id, serial_number) DO NOTHING RETURNING 1`,
          [tenantId, serialNumber, caId, revokedAt, reasonCode],
        );
        if (inserted.length > 0) recorded = { rootCrl: true };
        return;
      }
      // A root that signs its leaves' CRL: the issuing CA is one more entry of it.
      const inserted: unknown[] = await manager.query(
        `INSERT INTO revocation.revoked_certificates (tenant_id, ca_id, serial_number, certificate_id, revocation_date, reason_code)
         SELECT tenant_id, ca_id, $3, $4, $5, $6 FROM revocation.crl_issuers WHERE tenant_id = $1 AND ca_id = $2
         ON CONFLICT (ca_id, serial_number) DO NOTHING RETURNING 1`,
        [tenantId, issuerCaId, serialNumber, caId, revokedAt, reasonCode],
      );
      const issuer: unknown[] = await manager.query(
        'SELECT 1 FROM revocation.crl_issuers WHERE tenant_id = $1 AND ca_id = $2',
        [tenantId, issuerCaId],
      );
      matched = issuer.length > 0;
      if (inserted.length > 0) recorded = { rootCrl: false, caId: issuerCaId };
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
   * read the CA's entries again. Returns whether an entry was removed.
   */
  async releaseHold(event: EventEnvelope<CertificateHoldReleasedPayload>): Promise<boolean> {
    const { tenantId, caId, serialNumber, certificateId, heldSince } = event.payload;
    let removed = false;
    const fresh = await applyOnce(this.dataSource, REVOCATION_SCHEMA, event, async (manager) => {
      if (event.tenantId !== tenantId) return;
      const deleted: [unknown[], number] = await manager.query(
        `DELETE FROM revocation.revoked_certificates
          WHERE tenant_id = $1 AND serial_number = $2 AND certificate_id = $3
            AND reason_code = $4 AND revocation_date = $5 AND ca_id = $6`,
        [tenantId, serialNumber, certificateId, RevocationReasonCodes.CertificateHold, heldSince, caId],
      );
      if (deleted[1] === 0) return;
      await manager.query(
        'UPDATE revocation.crl_issuers SET entries_removed = entries_removed + 1 WHERE ca_id = $1',
        [caId],
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
