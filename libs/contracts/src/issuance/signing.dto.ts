/**
 * Signing on behalf of the other contexts (DESIGN.md): the CA key never leaves issuance, so the
 * revocation context sends the TBSCertList it built, and the responder the public key of its
 * delegated OCSP signer.
 */
export interface SignCrlCommand {
  tenantId: string;
  /** BlobStore reference of the DER TBSCertList (too large for one message at scale). */
  tbsBlobRef: string;
}

export interface SignCrlResult {
  /** DER Ecdsa-Sig-Value over the TBSCertList, base64. */
  signature: string;
}

export interface IssueOcspSignerCommand {
  tenantId: string;
  /** DER SubjectPublicKeyInfo of the responder's own key, base64. */
  publicKeySpki: string;
}

export interface IssueOcspSignerResult {
  /** DER of the delegated OCSP-signing certificate (EKU OCSPSigning, id-pkix-ocsp-nocheck), base64. */
  certificateDer: string;
  notAfter: string;
}
