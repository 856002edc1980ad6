import {
  CertificateUsage,
  KeyAlgorithm,
  IssueCertificateCommand,
  IssueCertificateRequest,
  IssueCertificateV2Command,
  IssueCertificateV2Request,
  AcmeCertificateRequest,
  AcmeCertificateWithoutCnRequest,
  IssuedCertificate,
  assertCommandFields,
  CaError,
} from '@ca/contracts';
import { DEFAULT_DEPLOYMENT_KEY_ALGORITHM, validateDto } from '@ca/domain';
import { CertificateStore } from './certificate.store';
import { findTenantCertificate } from './certificate.repository';
import { CertificateProfile, normalizedHostNames, orderedCustomExtensions } from './certificate-profile';
import { CertificateMinter } from './certificate.minter';
import { importSubjectPublicKey } from './subject-public-key';

/** docs/api.md#issue-a-certificate-v1 (client certificates) and docs/api.md#issue-a-certificate-v2 (with usage, SANs, extensions). */
export class IssueCertificateHandler {
  constructor(
    private readonly minter: CertificateMinter,
    private readonly certificates: CertificateStore,
    /** KEY_ALGORITHM: RSA-2048 keys are certified only where it is this (docs/api.md#key-algorithms). */
    private readonly deploymentKeyAlgorithm: KeyAlgorithm = DEFAULT_DEPLOYMENT_KEY_ALGORITHM,
  ) {}

  async execute(command: IssueCertificateCommand): Promise<IssuedCertificate> {
    assertCommandFields(command, { tenantId: 'uuid', principal: 'principal', requestId: 'optionalText' });
    const request = await validateDto(IssueCertificateRequest, command.request);
    const subjectKey = await importSubjectPublicKey(command.subjectPublicKey, this.deploymentKeyAlgorithm);
    return this.minter.mint({
      tenantId: command.tenantId,
      profile: {
        ...subjectOf(request),
        usage: CertificateUsage.Client,
        dnsNames: [],
        mustStaple: false,
        customExtensions: [],
      },
      validityDays: request.validityDays,
      subjectKey,
      principal: command.principal,
    });
  }

  /**
   * `viaAcme`: asked on the acme service's own subject. Its key is the order's CSR's, which the
   * acme service verified (RFC 8555 7.4), so the CA never held its private key: recorded as such.
   */
  async executeV2(command: IssueCertificateV2Command, viaAcme = false): Promise<IssuedCertificate> {
    assertCommandFields(command, { tenantId: 'uuid', principal: 'principal', requestId: 'optionalText' });
    // validateDto also runs the rules across fields (v2IssuanceRuleErrors). acme's request for
    // names too long for a CN has none (docs/api.md#acme-certificate-profile): stored as ''.
    // `withoutCommonName` and `replaces` are acme's, honoured only on its own subject (which only
    // acme's NATS user may publish): an admin API caller can set neither.
    const withoutCn = viaAcme && command.withoutCommonName === true;
    const request = await validateDto(requestShape(viaAcme, withoutCn), command.request);
    if (withoutCn) request.commonName = '';
    const renewedFrom = viaAcme ? await this.predecessor(command) : undefined;
    const imported = await importSubjectPublicKey(command.subjectPublicKey, this.deploymentKeyAlgorithm);
    const subjectKey = viaAcme ? { ...imported, fromCsr: true } : imported;
    const usage = request.usage ?? CertificateUsage.Client;
    const hostNames = normalizedHostNames(usage, request.commonName, request.subjectAlternativeNames ?? []);
    return this.minter.mint({
      tenantId: command.tenantId,
      profile: {
        ...subjectOf(request),
        ...hostNames,
        usage,
        mustStaple: request.mustStaple === true,
        customExtensions: orderedCustomExtensions(request.customExtensions),
      },
      validityDays: request.validityDays,
      subjectKey,
      principal: command.principal,
      viaAcme,
      // docs/api.md#acme-certificate-profile: O and C of the CA that signs it, set as it is signed.
      subjectOfSigningCa: viaAcme,
      ...(renewedFrom ? { renewedFrom } : {}),
    });
  }

  /**
   * ACME `replaces` (RFC 9773 5): the tenant's certificate this one succeeds, recorded like a
   * renewal's predecessor; one that has a successor already is refused (acme: alreadyReplaced).
   */
  private async predecessor(command: IssueCertificateV2Command): Promise<string | undefined> {
    if (command.replaces === undefined) return undefined;
    assertCommandFields(command, { replaces: 'uuid' });
    const replaced = await findTenantCertificate(this.certificates, command.tenantId, command.replaces);
    if (await this.certificates.hasSuccessor(replaced.id))
      throw CaError.conflict('This certificate has been replaced already.');
    return replaced.id;
  }
}

/** The admin API's request; acme's, without O and C (and without CN when no name fits in one). */
function requestShape(viaAcme: boolean, withoutCn: boolean): typeof IssueCertificateV2Request {
  if (!viaAcme) return IssueCertificateV2Request;
  return withoutCn ? AcmeCertificateWithoutCnRequest : AcmeCertificateRequest;
}

function subjectOf(
  request: IssueCertificateRequest,
): Omit<CertificateProfile, 'usage' | 'dnsNames' | 'mustStaple' | 'customExtensions'> {
  const { clientId, commonName, organization, organizationalUnit, country } = request;
  return { clientId, commonName, organization, organizationalUnit, country };
}
