import { CaError, ErrorCode, SignCrlCommand, SignCrlResult } from '@ca/contracts';
import { BlobStore } from '@ca/messaging';
import { assertTbsCertListLints, inspectTbsCertList, parseCertificate, signTbs } from '@ca/pki';
import { CertificateAuthoritySigner } from '../certificate-authority/certificate-authority.signer';

/**
 * Signs a CRL the revocation context assembled (Boulder's split: it owns the entries, the CA key
 * stays here). Only a TBSCertList of this tenant's CA is signed: the DER is inspected first, so
 * the key can never be made to sign a certificate or anything else.
 */
export class SignCrlHandler {
  constructor(
    private readonly signer: CertificateAuthoritySigner,
    private readonly blobs: BlobStore,
  ) {}

  async execute(command: SignCrlCommand): Promise<SignCrlResult> {
    const { authority, privateKey } = await this.signer.forTenant(command.tenantId);
    const tbs = await this.blobs.get(command.tbsBlobRef);
    if (!tbs)
      throw CaError.validation([{ field: 'tbsBlobRef', message: 'no TBSCertList under this reference' }]);
    let inspected: ReturnType<typeof inspectTbsCertList>;
    try {
      inspected = inspectTbsCertList(tbs);
    } catch {
      throw CaError.validation([{ field: 'tbsBlobRef', message: 'not a v2 TBSCertList this CA signs' }]);
    }
    const ca = parseCertificate(new Uint8Array(authority.certificateDer));
    if (!Buffer.from(inspected.issuerDer).equals(Buffer.from(ca.subjectDer))) {
      throw new CaError(ErrorCode.Forbidden, 'The CRL names another issuer than this tenant CA.');
    }
    if (
      inspected.authorityKeyIdentifierHex &&
      inspected.authorityKeyIdentifierHex !== ca.subjectKeyIdentifierHex
    ) {
      throw new CaError(ErrorCode.Forbidden, 'The CRL names another CA key than this tenant CA.');
    }
    assertTbsCertListLints(tbs); // docs/lints.md
    const signature = await signTbs(tbs, privateKey);
    return { signature: Buffer.from(signature).toString('base64') };
  }
}
