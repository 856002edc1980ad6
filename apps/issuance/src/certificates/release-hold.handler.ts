import {
  CaError,
  CertificateHoldReleasedPayload,
  ErrorCode,
  EventType,
  ReleaseHoldCommand,
  ReleaseHoldRequest,
  ReleaseHoldResult,
  RevocationReasonCodes,
} from '@ca/contracts';
import { validateDto } from '@ca/domain';
import { IssuanceDatabase } from '../issuance-database.store';
import { TenantStandingStore } from '../tenants/tenant-standing.store';
import { admitWithinLimits } from './certificate-limit';
import { findTenantCertificate } from './certificate.repository';
import { ResponderPublication } from '../publication/responder-publication';

/**
 * Ends a certificateHold (RFC 5280 5.3.1): Revoked (reason 6) → Active again. Any other state is
 * 409 CERTIFICATE_NOT_ON_HOLD. The row is locked like a revocation, so a release and a revocation
 * of one certificate are serialised. A released certificate counts against the plan limit again:
 * at the limit the release is refused (409 CERTIFICATE_LIMIT_REACHED), so holding and releasing
 * cannot carry a tenant past it. The cleared row, the hold's history and
 * `certificate.hold-released` commit together.
 */
export class ReleaseHoldHandler {
  constructor(
    private readonly database: IssuanceDatabase,
    private readonly onEventsRecorded: () => void,
    /** The plan limit of a tenant issuance has no `tenant.updated` for yet (never unlimited). */
    private readonly defaultCertificateLimit: number,
    private readonly publication?: ResponderPublication,
  ) {}

  async execute(command: ReleaseHoldCommand): Promise<ReleaseHoldResult> {
    await findTenantCertificate(this.database.tables.certificates, command.tenantId, command.certificateId);
    const request = await validateDto(ReleaseHoldRequest, command.request ?? {});
    const releasedAt = new Date(Math.floor(Date.now() / 1000) * 1000);
    const result = await this.database.transaction(async (tables) => {
      const certificate = await findTenantCertificate(
        tables.certificates,
        command.tenantId,
        command.certificateId,
        {
          lock: true,
        },
      );
      const heldSince = certificate.revokedAt;
      if (!heldSince || certificate.revocationReasonCode !== RevocationReasonCodes.CertificateHold) {
        throw CaError.conflict(
          heldSince
            ? 'This certificate is revoked for good, not on hold: only a CertificateHold can be released.'
            : 'This certificate is not revoked: only a certificate on CertificateHold can be released.',
          ErrorCode.CertificateNotOnHold,
        );
      }
      if (certificate.notAfter > releasedAt) await this.assertWithinLimit(tables.tenants, command);
      await tables.certificateRevocations.releaseHold({
        tenantId: certificate.tenantId,
        certificateId: certificate.id,
        heldSince,
        holdReason: certificate.revocationReason,
        releasedAt,
        releasedBy: command.principal,
        releaseReason: request.reason ?? null,
      });
      const event = await tables.outbox.record<CertificateHoldReleasedPayload>(
        EventType.CertificateHoldReleased,
        {
          tenantId: certificate.tenantId,
          certificateId: certificate.id,
          caId: certificate.caId,
          serialNumber: certificate.serialNumber,
          heldSince: heldSince.toISOString(),
          releasedAt: releasedAt.toISOString(),
          releasedBy: command.principal,
          sequence: await tables.certificates.nextStatusSequence(certificate.id),
        },
      );
      return {
        answer: {
          certificateId: certificate.id,
          releasedAt: releasedAt.toISOString(),
          heldSince: heldSince.toISOString(),
        },
        event,
      };
    });
    this.onEventsRecorded();
    // Released either way; OCSP answers good at once when the responder confirms, else once it is back.
    await this.publication?.published([result.event], 'revocation');
    return result.answer;
  }

  /** The certificate becomes Active again: it needs a free slot, counted under the issuance lock. */
  private async assertWithinLimit(tenants: TenantStandingStore, command: ReleaseHoldCommand): Promise<void> {
    const standings = await tenants.lockAndRead([command.tenantId], this.defaultCertificateLimit);
    const [refusal] = admitWithinLimits([command], standings);
    if (refusal) throw refusal;
  }
}
