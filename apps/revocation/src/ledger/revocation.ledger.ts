import {
  CaInitializedPayload,
  CaRevokedPayload,
  CertificateHoldReleasedPayload,
  CertificateRevokedPayload,
  EventEnvelope,
  IssuingCaAddedPayload,
  parseTenantId,
  parseUuid,
} from '@ca/contracts';
import { Injectable, Logger } from '@nestjs/common';
import { RevocationDatabase } from '../stores/revocation-database.store';

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
@Injectable()
export class RevocationLedger {
  private readonly logger = new Logger('RevocationLedger');

  constructor(private readonly database: RevocationDatabase) {}

  /**
   * Registers the tenant's CA that signs leaves, whose CRL `/crl` serves (docs/api.md#chains): the
   * issuing CA when the tenant has one, else its root. Returns that CA's id.
   */
  async registerIssuer(event: EventEnvelope<CaInitializedPayload>): Promise<string> {
    const { tenantId, caId, certificateDer, notAfter } = leafSigningCaOf(event.payload);
    await this.database.applyOnce(event, async ({ issuers, rootIssuers }) => {
      await issuers.register({
        tenantId,
        caId,
        certificateDer: Buffer.from(certificateDer, 'base64'),
        notAfter,
      });
      // With an issuing CA, the root issues a CRL of its own: root.crl (docs/api.md#distribution-points);
      // not a corporate root, whose key is not here (docs/api.md#external-root).
      const { payload } = event;
      if (payload.issuingCaId && payload.caId !== caId && !payload.externalRoot) {
        await rootIssuers.register({
          tenantId,
          caId: payload.caId,
          certificateDer: Buffer.from(payload.certificateDer, 'base64'),
          notAfter: payload.notAfter,
        });
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
    await this.database.applyOnce(event, ({ issuers }) =>
      issuers.register({ tenantId, caId, certificateDer: Buffer.from(certificateDer, 'base64'), notAfter }),
    );
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
    const fresh = await this.database.applyOnce(event, async ({ issuers, ledger }) => {
      if (event.tenantId !== tenantId) return;
      if (!(await issuers.isIssuerOf(tenantId, caId))) return;
      matched = true;
      recorded = await ledger.add({ tenantId, caId, serialNumber, certificateId, revokedAt, reasonCode });
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
    let changed: string[] = [];
    const refused: EventEnvelope<CertificateRevokedPayload>[] = [];
    await this.database.applyOnceEach(events, async ({ issuers, ledger }, fresh) => {
      const named = fresh.filter((event) => event.tenantId === event.payload.tenantId);
      const ours = new Set(
        (await issuers.issuersAmong([...new Set(named.map((event) => String(event.payload.caId)))])).map(
          (issuer) => `${issuer.tenantId}:${issuer.caId}`,
        ),
      );
      const accepted = named.filter((event) =>
        ours.has(`${parseTenantId(event.payload.tenantId)}:${parseUuid(event.payload.caId)}`),
      );
      refused.push(...fresh.filter((event) => !accepted.includes(event)));
      changed = await ledger.addMany(
        accepted.map(({ payload }) => ({
          tenantId: payload.tenantId,
          caId: payload.caId,
          serialNumber: payload.serialNumber,
          certificateId: payload.certificateId,
          revokedAt: payload.revokedAt,
          reasonCode: payload.reasonCode,
        })),
      );
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
    return changed;
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
    const fresh = await this.database.applyOnce(
      event,
      async ({ issuers, rootIssuers, ledger, revokedCas }) => {
        if (event.tenantId !== tenantId) return;
        if (await rootIssuers.isRootOf(tenantId, issuerCaId)) {
          matched = true;
          if (await revokedCas.add({ tenantId, serialNumber, caId, revokedAt, reasonCode })) {
            recorded = { rootCrl: true };
          }
          return;
        }
        // A root that signs its leaves' CRL: the issuing CA is one more entry of it.
        const inserted = await ledger.addUnderIssuer(tenantId, issuerCaId, {
          serialNumber,
          certificateId: caId,
          revokedAt,
          reasonCode,
        });
        matched = await issuers.isIssuerOf(tenantId, issuerCaId);
        if (inserted) recorded = { rootCrl: false, caId: issuerCaId };
      },
    );
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
    const fresh = await this.database.applyOnce(event, async ({ issuers, ledger }) => {
      if (event.tenantId !== tenantId) return;
      if (!(await ledger.removeHold({ tenantId, caId, serialNumber, certificateId, heldSince }))) return;
      await issuers.countRemovals(caId, 1);
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
