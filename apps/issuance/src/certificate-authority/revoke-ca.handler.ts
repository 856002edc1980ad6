import {
  CaError,
  CaRevokedPayload,
  CaRole,
  ErrorCode,
  EventType,
  RevocationReasonCodes,
  RevokeCaCommand,
  RevokeCaRequest,
  RevokeCaResult,
  assertCommandFields,
} from '@ca/contracts';
import { validateDto } from '@ca/domain';
import { ResponderPublication } from '../publication/responder-publication';
import { IssuanceDatabase } from '../issuance-database.store';
import { revocationEventFields, revocationNow } from '../revocation-record';
import { CertificateAuthorityEntity } from './certificate-authority.entity';
import { CaStore } from './ca.store';
import { EXTERNAL_KEY_CUSTODY } from './pending-ca.entity';

/**
 * docs/api.md#revoke-an-issuing-ca: an issuing CA → revoked, once (row locked, so two concurrent
 * revocations cannot both succeed). The change and `ca.revoked` commit together: revocation then
 * lists it on root.crl and the responder answers `revoked` for it; issuance signs no leaf with it
 * (CertificateAuthoritySigner.forLeaves). A root is the trust anchor relying parties installed:
 * no CRL of its own can revoke it, so it is refused. So is an issuing CA a corporate root certified
 * (docs/api.md#external-root): that root's CRL and OCSP are where relying parties look, and its key
 * is not here, so a revocation recorded here would be published nowhere.
 */
export class RevokeCaHandler {
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
      const ca = await cas.lock(command.caId, command.tenantId);
      if (!ca) throw CaError.notFound('No CA of this tenant has this id.');
      if (ca.role !== CaRole.Issuing || !ca.issuerCaId) {
        throw CaError.validation([
          {
            field: 'caId',
            message:
              'is the root, the trust anchor relying parties installed: remove it from their trust stores instead',
          },
        ]);
      }
      if (ca.revokedAt) throw CaError.conflict('This issuing CA is already revoked.');
      await assertIssuerHeldHere(cas, ca);
      await cas.revoke(ca.id, command.tenantId, revocation);
      const event = await outbox.record<CaRevokedPayload>(EventType.CaRevoked, {
        tenantId: ca.tenantId,
        caId: ca.id,
        issuerCaId: ca.issuerCaId,
        serialNumber: ca.serialNumber,
        ...revocationEventFields(revocation),
      });
      return {
        answer: { caId: ca.id, serialNumber: ca.serialNumber, revokedAt: revocation.revokedAt.toISOString() },
        event,
      };
    });
    this.onEventsRecorded();
    // Recorded either way; published says whether OCSP already answers revoked for the CA.
    const published = (await this.publication?.published([result.event], 'revocation')) ?? false;
    return { ...result.answer, published };
  }
}

/** 409 REVOKE_AT_CORPORATE_CA when the CA's issuer is a corporate root, whose key is not held here. */
async function assertIssuerHeldHere(cas: CaStore, ca: CertificateAuthorityEntity): Promise<void> {
  const issuer = await cas.byIdOfTenant(ca.issuerCaId!, ca.tenantId);
  if (issuer?.keyCustody !== EXTERNAL_KEY_CUSTODY) return;
  throw CaError.conflict(
    `This issuing CA (serial ${ca.serialNumber}) was certified by your corporate root, whose key is not held here, so no CRL or OCSP answer of this system can revoke it: revoke it at your corporate CA, then add a new issuing CA (POST /v2/ca/issuing) and upload its certificate.`,
    ErrorCode.RevokeAtCorporateCa,
  );
}
