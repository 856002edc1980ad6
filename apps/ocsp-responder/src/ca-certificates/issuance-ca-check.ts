import { CaInitializedPayload, CaSummary, EventEnvelope, IssuanceApi, IssuancePattern } from '@ca/contracts';
import { RpcClient } from '@ca/messaging';
import { pemToDer } from '@ca/pki';

/**
 * Whether issuance vouches for the CAs a `ca.initialized` names: the responder asks it, by
 * request/reply, for the tenant's CAs (`issuance.ca.list`) and compares ids, roles and certificate
 * bytes. On the production bus only issuance's user may answer `issuance.*` requests and publish
 * into the responder's inbox, so the answer is issuance's; an event published by anyone else (a
 * squatter ahead of the real one) names CAs issuance does not hold. Returns undefined when
 * vouched for, else the reason. Throws when issuance cannot be asked (the event is retried).
 */
export class IssuanceCaCheck {
  constructor(private readonly issuance: RpcClient<IssuanceApi>) {}

  async problem(event: EventEnvelope<CaInitializedPayload>): Promise<string | undefined> {
    const { tenantId, caId, certificateDer, issuingCaId, issuingCertificateDer } = event.payload;
    if (event.tenantId !== tenantId) return 'envelope and payload name different tenants';
    const { cas } = await this.issuance.send(IssuancePattern.ListCas, {
      tenantId,
      principal: 'ocsp-responder',
    });
    const rootProblem = differs(cas, caId, 'root', certificateDer);
    if (rootProblem) return rootProblem;
    if (issuingCaId && issuingCertificateDer)
      return differs(cas, issuingCaId, 'issuing', issuingCertificateDer);
    return undefined;
  }
}

function differs(cas: CaSummary[], caId: string, role: CaSummary['role'], der: string): string | undefined {
  const held = cas.find((ca) => ca.caId === caId && ca.role === role);
  if (!held?.certificatePem) return `issuance holds no ${role} CA ${caId} for this tenant`;
  return Buffer.from(pemToDer(held.certificatePem)).equals(Buffer.from(der, 'base64'))
    ? undefined
    : `issuance holds another certificate for ${role} CA ${caId}`;
}
