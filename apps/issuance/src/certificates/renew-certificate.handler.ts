import {
  CaError,
  CertificateUsage,
  KeyAlgorithm,
  IssuedCertificate,
  RenewCertificateCommand,
  RenewCertificateRequest,
  assertCommandFields,
} from '@ca/contracts';
import { DEFAULT_DEPLOYMENT_KEY_ALGORITHM, serverValidityErrors, validateDto } from '@ca/domain';
import { CertificateStore } from './certificate.store';
import { CertificateProfile, normalizedHostNames } from './certificate-profile';
import { CertificateMinter } from './certificate.minter';
import { findTenantCertificate } from './certificate.repository';
import { importSubjectPublicKey } from './subject-public-key';

/**
 * docs/api.md#renew-a-certificate: a new certificate (new id, serial and key) with the same subject,
 * clientId, usage, SANs and must-staple; v2 renewal also keeps the custom extensions. The new key
 * is the gateway's fresh one or the caller's CSR's; a certificate issued for a CSR is renewed with
 * a CSR only (docs/api.md#csr-issuance). The original
 * stays as it is until it expires. Revoked originals are refused (docs/api.md#renew-a-certificate); expired ones
 * may be renewed.
 */
export class RenewCertificateHandler {
  constructor(
    private readonly certificates: CertificateStore,
    private readonly minter: CertificateMinter,
    /** KEY_ALGORITHM: RSA-2048 keys are certified only where it is this (docs/api.md#key-algorithms). */
    private readonly deploymentKeyAlgorithm: KeyAlgorithm = DEFAULT_DEPLOYMENT_KEY_ALGORITHM,
  ) {}

  execute(command: RenewCertificateCommand): Promise<IssuedCertificate> {
    return this.renew(command, { keepCustomExtensions: false });
  }

  executeV2(command: RenewCertificateCommand): Promise<IssuedCertificate> {
    return this.renew(command, { keepCustomExtensions: true });
  }

  private async renew(
    command: RenewCertificateCommand,
    options: { keepCustomExtensions: boolean },
  ): Promise<IssuedCertificate> {
    assertCommandFields(command, {
      tenantId: 'uuid',
      principal: 'principal',
      requestId: 'optionalText',
      certificateId: 'uuid',
    });
    const original = await findTenantCertificate(this.certificates, command.tenantId, command.certificateId);
    const request = await validateDto(RenewCertificateRequest, command.request);
    const usage = original.usage as CertificateUsage;
    const validityErrors = serverValidityErrors(usage, request.validityDays);
    if (validityErrors.length > 0) throw CaError.validation(validityErrors);
    if (original.revokedAt)
      throw CaError.conflict('A revoked certificate cannot be renewed; issue a new one instead.');
    const subjectKey = await importSubjectPublicKey(command.subjectPublicKey, this.deploymentKeyAlgorithm);
    if (original.keyFromCsr && !subjectKey.fromCsr) {
      // The CA never held the original's key, so it cannot make one for the renewal either.
      throw CaError.validation(
        [
          {
            field: 'csrPem',
            message:
              'required: this certificate was issued for your CSR; renew it through /v2 with a csrPem for the new key',
          },
        ],
        'A certificate issued for a CSR is renewed with a CSR.',
      );
    }
    const profile: CertificateProfile = {
      clientId: original.clientId,
      ...normalizedHostNames(usage, original.commonName, original.dnsNames),
      organization: original.organization,
      organizationalUnit: original.organizationalUnit,
      country: original.country,
      usage,
      mustStaple: original.mustStaple,
      customExtensions: options.keepCustomExtensions ? original.customExtensions : [],
    };
    return this.minter.mint({
      tenantId: command.tenantId,
      profile,
      validityDays: request.validityDays,
      renewedFrom: original.id,
      subjectKey,
      principal: command.principal,
    });
  }
}
