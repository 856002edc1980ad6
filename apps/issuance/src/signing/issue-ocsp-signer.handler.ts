import { Logger } from '@nestjs/common';
import {
  CaError,
  ErrorCode,
  EventType,
  IssueOcspSignerCommand,
  IssueOcspSignerResult,
  OCSP_SIGNERS_PER_HOUR,
  OcspSignerCertifiedPayload,
} from '@ca/contracts';
import { validateDto } from '@ca/domain';
import { X509Certificate, createHash, type webcrypto } from 'node:crypto';
import {
  CertificationRequestInfo,
  buildLeafCertificate,
  importLeafPublicKey,
  leafKeyAlgorithmOfSpki,
  parseCertificate,
  parseCertificationRequest,
  randomSerialNumber,
  validityOfDays,
} from '@ca/pki';
import { CertificateAuthoritySigner } from '../certificate-authority/certificate-authority.signer';
import { IssuanceDatabase } from '../issuance-database.store';

/** Short-lived, so a lost responder key stops mattering quickly; the responder renews well before expiry. */
export const OCSP_SIGNER_VALIDITY_DAYS = 30;

/**
 * docs/api.md#ocsp: the delegated OCSP-signing certificate of a tenant (RFC 6960 4.2.2.2):
 * EKU id-kp-OCSPSigning and id-pkix-ocsp-nocheck, for a key the responder generated and keeps.
 * Certified by the CA that signs leaves, or, with `issuer: root`, by the root, to answer for the
 * issuing CA (docs/api.md#ocsp). Not listed among the tenant's certificates; the responder holds it.
 *
 * Whoever holds the responder's bus password could otherwise mint OCSP signers for any tenant
 * (docs/security.md, "OCSP signer certificates"), so: only for a key the request proves to hold
 * (a PKCS#10 request signed with it), at most OCSP_SIGNERS_PER_HOUR per tenant and CA, each
 * recorded in `ocsp_signer_certifications` and announced as `ocsp-signer.certified`, in the
 * transaction that counts it, so the responder notices a signer it did not ask for.
 */
export class IssueOcspSignerHandler {
  private readonly logger = new Logger('IssueOcspSignerHandler');

  constructor(
    private readonly signer: CertificateAuthoritySigner,
    private readonly database: IssuanceDatabase,
    private readonly onEventsRecorded: () => void,
  ) {}

  async execute(input: IssueOcspSignerCommand): Promise<IssueOcspSignerResult> {
    const command = await validateDto(IssueOcspSignerCommand, input);
    const { authority, privateKey, validUntil } = await this.signer.forIssuer(
      command.tenantId,
      command.issuer,
      command.caId,
    );
    const request = await provenRequest(command.certificationRequest);
    // The signer's key is of the certifying CA's type and size (docs/api.md#key-algorithms); a
    // responder made before that rule sends P-256, which stays certifiable.
    const caKey = leafKeyAlgorithmOfSpki(
      new X509Certificate(authority.certificateDer).publicKey.export({ type: 'spki', format: 'der' }),
    );
    const allowed = caKey && caKey !== 'P-256' ? ['P-256', caKey] : ['P-256'];
    let publicKey: webcrypto.CryptoKey;
    try {
      ({ publicKey } = await importLeafPublicKey(request.subjectPublicKeyInfo, allowed));
    } catch {
      throw new CaError(ErrorCode.CsrKeyNotAllowed, `The signer's key must be ${allowed.join(' or ')}.`, [
        { field: 'certificationRequest', message: `must request a ${allowed.join(' or ')} key` },
      ]);
    }
    const publicKeySha256 = createHash('sha256').update(request.subjectPublicKeyInfo).digest('hex');
    const ca = parseCertificate(new Uint8Array(authority.certificateDer));
    // Backdated like every certificate (docs/certificate-profile.md#certificate-validity), so a
    // relying party whose clock is behind still accepts answers signed with it; never past the CA
    // nor, under a corporate root, past its chain.
    const wanted = validityOfDays(OCSP_SIGNER_VALIDITY_DAYS, new Date(), ca.notBefore);
    const notAfter = wanted.notAfter > validUntil ? validUntil : wanted.notAfter;
    const serialNumber = randomSerialNumber();
    const serialHex = Buffer.from(serialNumber).toString('hex');
    const der = await this.database.transaction(async ({ ocspSigners, outbox }) => {
      // One count per tenant CA at a time, so concurrent requests cannot both pass the bound.
      await ocspSigners.lockCa(authority.id);
      const recent = await ocspSigners.certifiedWithinHour(authority.id);
      if (recent >= OCSP_SIGNERS_PER_HOUR) {
        this.logger.warn(
          { tenantId: command.tenantId, caId: authority.id, recent, publicKeySha256 },
          'OCSP signer refused: too many certified for this tenant CA within the hour',
        );
        throw new CaError(
          ErrorCode.RateLimited,
          `At most ${OCSP_SIGNERS_PER_HOUR} OCSP signers are certified per tenant CA within an hour.`,
        );
      }
      const certificate = await buildLeafCertificate(
        {
          subject: {
            country: ca.subject.country,
            organization: ca.subject.organization,
            // 64 characters (RFC 5280 ub-common-name), never cut inside one.
            commonName: Array.from(`OCSP Responder ${ca.subject.commonName}`).slice(0, 64).join(''),
          },
          notBefore: wanted.notBefore,
          notAfter,
          serialNumber,
          extendedKeyUsages: ['ocspSigning'],
          ocspNoCheck: true,
        },
        publicKey,
        { certificateDer: new Uint8Array(authority.certificateDer), privateKey },
      );
      const certifiedAt = await ocspSigners.record({
        serialHex,
        tenantId: command.tenantId,
        caId: authority.id,
        issuer: command.issuer ?? null,
        publicKeySha256,
        notAfter,
      });
      await outbox.record<OcspSignerCertifiedPayload>(EventType.OcspSignerCertified, {
        tenantId: command.tenantId,
        caId: authority.id,
        ...(command.issuer ? { issuer: command.issuer } : {}),
        serialNumber: serialHex,
        publicKeySha256,
        notAfter: notAfter.toISOString(),
        certifiedAt: new Date(certifiedAt).toISOString(),
      });
      return certificate;
    });
    this.onEventsRecorded();
    this.logger.log(
      { tenantId: command.tenantId, caId: authority.id, serialNumber: serialHex, publicKeySha256 },
      'OCSP signer certified',
    );
    return { certificateDer: Buffer.from(der).toString('base64'), notAfter: notAfter.toISOString() };
  }
}

/** The request, once its self-signature verifies with its own key (RFC 2986 section 3). */
async function provenRequest(base64: string): Promise<CertificationRequestInfo> {
  let request: CertificationRequestInfo;
  try {
    request = parseCertificationRequest(Buffer.from(base64, 'base64'));
  } catch {
    throw new CaError(ErrorCode.CsrInvalid, 'certificationRequest is not a DER PKCS#10 request.', [
      { field: 'certificationRequest', message: 'not a DER PKCS#10 CertificationRequest' },
    ]);
  }
  if (!(await request.verifySignature())) {
    throw new CaError(
      ErrorCode.CsrSignatureInvalid,
      'The certification request is not signed with its own key: no proof of possession (RFC 2986 section 3).',
      [{ field: 'certificationRequest', message: 'signature does not verify with its key' }],
    );
  }
  return request;
}
