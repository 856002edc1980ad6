import { CaError, IssueOcspSignerCommand, IssueOcspSignerResult, validateDto } from '@ca/contracts';
import { buildLeafCertificate, importEcPublicKey, parseCertificate, randomSerialNumber } from '@ca/pki';
import { CertificateAuthoritySigner } from '../certificate-authority/certificate-authority.signer';
import { addDays } from '../certificates/certificate-lifecycle';

/** Short-lived, so a lost responder key stops mattering quickly; the responder renews well before expiry. */
export const OCSP_SIGNER_VALIDITY_DAYS = 30;

/**
 * docs/api.md#ocsp: the delegated OCSP-signing certificate of a tenant (RFC 6960 4.2.2.2):
 * EKU id-kp-OCSPSigning and id-pkix-ocsp-nocheck, for a key the responder generated and keeps.
 * Not stored or listed among the tenant's certificates; the responder holds it.
 */
export class IssueOcspSignerHandler {
  constructor(private readonly signer: CertificateAuthoritySigner) {}

  async execute(input: IssueOcspSignerCommand): Promise<IssueOcspSignerResult> {
    const command = await validateDto(IssueOcspSignerCommand, input);
    const { authority, privateKey } = await this.signer.forTenant(command.tenantId);
    let publicKey: Awaited<ReturnType<typeof importEcPublicKey>>;
    try {
      publicKey = await importEcPublicKey(Buffer.from(command.publicKeySpki, 'base64'));
    } catch {
      throw CaError.validation([
        { field: 'publicKeySpki', message: 'must be a DER SubjectPublicKeyInfo of a P-256 key' },
      ]);
    }
    const ca = parseCertificate(new Uint8Array(authority.certificateDer));
    const notBefore = new Date(Math.floor(Date.now() / 1000) * 1000);
    const wanted = addDays(notBefore, OCSP_SIGNER_VALIDITY_DAYS);
    const notAfter = wanted > ca.notAfter ? ca.notAfter : wanted;
    const der = await buildLeafCertificate(
      {
        subject: {
          country: ca.subject.country,
          organization: ca.subject.organization,
          commonName: `OCSP Responder ${ca.subject.commonName}`.slice(0, 64),
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
