/** Payload of `ca.initialized`: what the public surface needs to serve the CA certificates. */
export interface CaInitializedPayload {
  tenantId: string;
  caId: string;
  /** DER of the CA certificate, base64. */
  certificateDer: string;
  notBefore: string;
  notAfter: string;
  /** docs/api.md#key-algorithms; absent in older events (P-256). */
  keyAlgorithm?: string;
  /** The issuing CA that signs the tenant's leaves, when the tenant has one (absent: the root signs them). */
  issuingCaId?: string;
  /** DER of the issuing CA certificate, base64; present with `issuingCaId`. */
  issuingCertificateDer?: string;
  issuingNotAfter?: string;
  /**
   * The root (`caId`, `certificateDer`) is the tenant's own, uploaded with the issuing CA it
   * certified (docs/api.md#external-root): no key of it is held, so it has no root.crl and no OCSP
   * signer here. Absent: the root is ours.
   */
  externalRoot?: true;
  /** The principal (token subject) whose command created the CA; absent in older events. */
  initializedBy?: string;
}
