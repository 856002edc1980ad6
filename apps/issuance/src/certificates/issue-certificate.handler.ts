import {
  CaError,
  CertificateUsage,
  IssueCertificateCommand,
  IssueCertificateRequest,
  IssueCertificateV2Command,
  IssueCertificateV2Request,
  IssuedCertificate,
  MAX_SANS,
  isDnsHostName,
  assertCommandFields,
  v2IssuanceRuleErrors,
  validateDto,
} from '@ca/contracts';
import { CertificateProfile, orderedCustomExtensions } from './certificate-profile';
import { CertificateMinter } from './certificate.minter';
import { importSubjectPublicKey } from './subject-public-key';

/** Spec 4.1.2 (operation 2, client certificates) and 4.1.3 (operation 8, with usage, SANs, extensions). */
export class IssueCertificateHandler {
  constructor(private readonly minter: CertificateMinter) {}

  async execute(command: IssueCertificateCommand): Promise<IssuedCertificate> {
    assertCommandFields(command, { tenantId: 'uuid', principal: 'principal', requestId: 'optionalText' });
    const request = await validateDto(IssueCertificateRequest, command.request);
    const subjectPublicKey = await importSubjectPublicKey(command.subjectPublicKey);
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
      subjectPublicKey,
      principal: command.principal,
    });
  }

  async executeV2(command: IssueCertificateV2Command): Promise<IssuedCertificate> {
    assertCommandFields(command, { tenantId: 'uuid', principal: 'principal', requestId: 'optionalText' });
    const request = await validateDto(IssueCertificateV2Request, command.request);
    const ruleErrors = v2IssuanceRuleErrors(request);
    if (ruleErrors.length > 0) throw CaError.validation(ruleErrors);
    const subjectPublicKey = await importSubjectPublicKey(command.subjectPublicKey);
    const usage = request.usage ?? CertificateUsage.Client;
    const dnsNames = (request.subjectAlternativeNames ?? []).map((name) => name.toLowerCase());
    // A server's host name in the CN must also be in the SAN: TLS clients match the SAN only (RFC 6125 6.4.4).
    const commonName = request.commonName.toLowerCase();
    if (
      usage !== CertificateUsage.Client &&
      isDnsHostName(commonName) &&
      !dnsNames.includes(commonName) &&
      dnsNames.length < MAX_SANS // spec 8: at most 50 names in all
    ) {
      dnsNames.unshift(commonName);
    }
    return this.minter.mint({
      tenantId: command.tenantId,
      profile: {
        ...subjectOf(request),
        usage,
        dnsNames,
        mustStaple: request.mustStaple === true,
        customExtensions: orderedCustomExtensions(request.customExtensions),
      },
      validityDays: request.validityDays,
      subjectPublicKey,
      principal: command.principal,
    });
  }
}

function subjectOf(
  request: IssueCertificateRequest,
): Omit<CertificateProfile, 'usage' | 'dnsNames' | 'mustStaple' | 'customExtensions'> {
  const { clientId, commonName, organization, organizationalUnit, country } = request;
  return { clientId, commonName, organization, organizationalUnit, country };
}
