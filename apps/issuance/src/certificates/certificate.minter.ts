import { randomUUID } from 'node:crypto';
import { CaError, CertificateIssuedPayload, EventType, IssuedCertificate } from '@ca/contracts';
import { newEvent } from '@ca/messaging';
import { isUniqueViolation } from '@ca/persistence';
import {
  buildLeafCertificate,
  derToPem,
  exportPrivateKeyPem,
  generateLeafKeyPair,
  randomSerialNumber,
  serialToHex,
  validityOfDays,
} from '@ca/pki';
import { CertificateAuthoritySigner } from '../certificate-authority/certificate-authority.signer';
import { CertificateGroupCommit } from './certificate-group-commit';
import { distributionPointsFor } from './distribution-points';
import { CertificateProfile, customExtensionsOf, extendedKeyUsagesOf } from './certificate-profile';

export interface MintRequest {
  tenantId: string;
  profile: CertificateProfile;
  validityDays: number;
  renewedFrom?: string;
  /** The tenant's plan limit (Active certificates), from the command; absent: no limit. */
  certificateLimit?: number;
}

/** A random 128-bit serial colliding is astronomically unlikely; a few retries make it impossible to store twice. */
const SERIAL_ATTEMPTS = 3;

/**
 * Makes one certificate (CONTRACT section 5 profile, plus the v2 usage, SANs, must-staple and
 * custom extensions of spec 4.1.3) for issue and renew alike: a fresh
 * key pair generated here, signed by the tenant CA, stored with its `certificate.issued` event in
 * one transaction (shared with the certificates minted meanwhile: CertificateGroupCommit), which
 * also enforces the tenant's plan limit. The private key is returned to the caller once and never stored.
 */
export class CertificateMinter {
  constructor(
    private readonly signer: CertificateAuthoritySigner,
    private readonly pkiPublicUrl: string,
    private readonly groupCommit: CertificateGroupCommit,
  ) {}

  async mint(request: MintRequest): Promise<IssuedCertificate> {
    const { authority, privateKey: caKey } = await this.signer.forTenant(request.tenantId);
    // Backdated a minute for relying parties whose clock runs behind, exactly validityDays long.
    const { notBefore, notAfter } = validityOfDays(request.validityDays, new Date(), authority.notBefore);
    if (notAfter > authority.notAfter) {
      // A certificate that would outlive its CA is refused.
      throw CaError.validation([
        {
          field: 'validityDays',
          message: `the certificate would expire after its CA (${authority.notAfter.toISOString()}); use fewer days`,
        },
      ]);
    }
    // The plan limit is checked once, locked, inside the transaction below: an unlocked count up
    // front as well cost every issuance a query to spare a refused one a key generation.
    const keys = await generateLeafKeyPair();
    const urls = distributionPointsFor(this.pkiPublicUrl, request.tenantId);
    const { profile } = request;

    for (let attempt = 1; ; attempt++) {
      const serialNumber = randomSerialNumber();
      const der = await buildLeafCertificate(
        {
          subject: {
            country: profile.country,
            organization: profile.organization,
            organizationalUnit: profile.organizationalUnit,
            commonName: profile.commonName,
          },
          notBefore,
          notAfter,
          serialNumber,
          extendedKeyUsages: extendedKeyUsagesOf(profile.usage),
          dnsNames: profile.dnsNames,
          mustStaple: profile.mustStaple,
          customExtensions: customExtensionsOf(profile),
          crlDistributionPointUrl: urls.crlUrl,
          ocspUrl: urls.ocspUrl,
          caIssuersUrl: urls.caIssuersUrl,
        },
        keys.publicKey,
        { certificateDer: authority.certificateDer, privateKey: caKey },
      );
      const certificateId = randomUUID();
      const serialHex = serialToHex(serialNumber);
      try {
        await this.groupCommit.store({
          certificate: {
            id: certificateId,
            tenantId: request.tenantId,
            caId: authority.id,
            serialNumber: serialHex,
            ...profile,
            certificateDer: Buffer.from(der),
            notBefore,
            notAfter,
            issuedAt: new Date(),
            renewedFrom: request.renewedFrom ?? null,
          },
          // Made here, in the request's context, whose trace and request id it carries.
          event: newEvent<CertificateIssuedPayload>(EventType.CertificateIssued, {
            tenantId: request.tenantId,
            certificateId,
            caId: authority.id,
            serialNumber: serialHex,
            notBefore: notBefore.toISOString(),
            notAfter: notAfter.toISOString(),
            ...(request.renewedFrom ? { renewedFrom: request.renewedFrom } : {}),
          }),
          limit: request.certificateLimit,
        });
      } catch (error) {
        if (isUniqueViolation(error) && attempt < SERIAL_ATTEMPTS) continue;
        throw error;
      }
      return {
        certificateId,
        serialNumber: serialHex,
        expiresAt: notAfter.toISOString(),
        certificatePem: derToPem(der),
        privateKeyPem: await exportPrivateKeyPem(keys.privateKey),
        caCertificatePem: derToPem(new Uint8Array(authority.certificateDer)),
      };
    }
  }
}
