import {
  CaError,
  CaRevokedPayload,
  CaRole,
  EventType,
  RevocationReasonCodes,
  RevokeCaCommand,
  RevokeCaRequest,
  RevokeCaResult,
  assertCommandFields,
} from '@ca/contracts';
import { validateDto } from '@ca/domain';
import { ResponderPublication } from '../publication/responder-publication';
import { parseCertificate } from '@ca/pki';
import { IssuanceDatabase } from '../issuance-database.store';
import { revocationEventFields, revocationNow } from '../revocation-record';

/**
 * docs/api.md#revoke-a-cross-certificate: the cross certificate the previous root signed for a root
 * made by renewal → revoked, once (row locked). The previous root's CRL (`root.crl` for the first
 * root, else `ca/{previousRootId}/crl`: the cross certificate's own CRL distribution point) then
 * lists it, so relying parties anchored on the previous root stop reaching the renewed root; the
 * renewed root itself and what it signed stay valid for those that trust it. Change and
 * `ca.revoked` (flagged `crossCertificate`) commit together.
 */
export class RevokeCrossCertificateHandler {
  constructor(
    private readonly database: IssuanceDatabase,
    private readonly onEventsRecorded: () => void,
    private readonly publication?: ResponderPublication,
  ) {}

  async execute(command: RevokeCaCommand): Promise<RevokeCaResult> {
    assertCommandFields(command, { tenantId: 'uuid', principal: 'principal', caId: 'uuid' });
    const request = await validateDto(RevokeCaRequest, command.request);
    const revocation = revocationNow(
      request.reason,
      RevocationReasonCodes[request.reasonCode],
      command.principal,
    );
    const result = await this.database.transaction(async ({ cas, outbox }) => {
      const root = await cas.lockRenewedRoot(command.caId, command.tenantId);
      if (!root) throw CaError.notFound('No CA of this tenant has this id.');
      if (root.role !== CaRole.Root || !root.crossCertificateDer || !root.previousRootCaId) {
        throw CaError.validation([
          {
            field: 'caId',
            message: 'has no cross certificate: only a root made by renewal (POST /v2/ca/root/renew) has one',
          },
        ]);
      }
      if (root.crossRevokedAt) throw CaError.conflict('This cross certificate is already revoked.');
      const serialNumber = parseCertificate(new Uint8Array(root.crossCertificateDer)).serialNumberHex;
      await cas.revokeCross(root.id, command.tenantId, serialNumber, revocation);
      const event = await outbox.record<CaRevokedPayload>(EventType.CaRevoked, {
        tenantId: command.tenantId,
        caId: root.id,
        issuerCaId: root.previousRootCaId,
        serialNumber,
        ...revocationEventFields(revocation),
        crossCertificate: true,
      });
      return {
        answer: { caId: root.id, serialNumber, revokedAt: revocation.revokedAt.toISOString() },
        event,
      };
    });
    this.onEventsRecorded();
    // Recorded either way; published says whether the responder already has it (docs/api.md).
    const published = (await this.publication?.published([result.event], 'revocation')) ?? false;
    return { ...result.answer, published };
  }
}
