import { CaError, IssueOcspSignerCommand, IssueOcspSignerResult, validateDto } from '@ca/contracts';
import { X509Certificate, type webcrypto } from 'node:crypto';
import {
  buildLeafCertificate,
  importLeafPublicKey,
  leafKeyAlgorithmOfSpki,
  parseCertificate,
  randomSerialNumber,
  validityOfDays,
} from '@ca/pki';
import { CertificateAuthoritySigner } from '../certificate-authority/certificate-authority.signer';

/** Short-lived, so a lost responder key stops mattering quickly; the responder renews well before expiry. */
export const OCSP_SIGNER_VALIDITY_DAYS = 30;

/**
 * docs/api.md#ocsp: the delegated OCSP-signing certificate of a tenant (RFC 6960 4.2.2.2):
 * EKU id-kp-OCSPSigning and id-pkix-ocsp-nocheck, for a key the responder generated and keeps.
 * Certified by the CA that signs leaves, or, with `issuer: root`, by the root, to answer for the
 * issuing CA (docs/api.md#ocsp). Not stored or listed among the tenant's certificates; the
 * responder holds it.
 */
export class IssueOcspSignerHandler {
  constructor(private readonly signer: CertificateAuthoritySigner) {}

  async execute(input: IssueOcspSignerCommand): Promise<IssueOcspSignerResult> {
    const command = await validateDto(IssueOcspSignerCommand, input);
    const { authority, privateKey, validUntil } = await this.signer.forIssuer(
      command.tenantId,
      command.issuer,
      command.caId,
    );
    // The signer's key is of the certifying CA's type and size (docs/api.md#key-algorithms); a
    // responder made before that rule sends P-256, which stays certifiable.
    const caKey = leafKeyAlgorithmOfSpki(
      new X509Certificate(authority.certificateDer).publicKey.export({ type: 'spki', format: 'der' }),
    );
    const allowed = caKey && caKey !== 'P-256' ? ['P-256', caKey] : ['P-256'];
    let publicKey: webcrypto.CryptoKey;
    try {
      ({ publicKey } = await importLeafPublicKey(Buffer.from(command.publicKeySpki, 'base64'), allowed));
    } catch {
      throw CaError.validation([
        {
          field: 'publicKeySpki',
          message: `must be a DER SubjectPublicKeyInfo of a ${allowed.join(' or ')} key`,
        },
      ]);
    }
    const ca = parseCertificate(new Uint8Array(authority.certificateDer));
    // Backdated like every certificate (docs/certificate-profile.md#certificate-validity), so a
    // relying party whose clock is behind still accepts answers signed with it; never past the CA
    // nor, under a corporate root, past its chain.
    const wanted = validityOfDays(OCSP_SIGNER_VALIDITY_DAYS, new Date(), ca.notBefore);
    const notBefore = wanted.notBefore;
    const notAfter = wanted.notAfter > validUntil ? validUntil : wanted.notAfter;
    const der = await buildLeafCertificate(
      {
        subject: {
          country: ca.subject.country,
          organization: ca.subject.organization,
          // 64 characters (RFC 5280 ub-common-name), never cut inside one.
          commonName: Array.from(`OCSP Responder ${ca.subject.commonName}`).slice(0, 64).join(''),
        },
        notBefore,
        notAfter,
        serialNumber: randomSerialNumber(),
        extendedKeyUsages: ['ocspSigning'],
        ocspNoCheck: true,
      },
      publicKey,
      { certificateDer: new Uint8Array(authority.certificateDer), privateKey },
    );
    return { certificateDer: Buffer.from(der).toString('base64'), notAfter: notAfter.toISOString() };
  }
}
