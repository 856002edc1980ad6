/**
 * Payload of `ca.issuing-added`: a new issuing CA under the tenant's root signs the tenant's leaves
 * from now on (docs/api.md#add-an-issuing-ca). The CA that signed them before keeps its own CRL and
 * OCSP answers for the certificates it signed.
 */
export interface IssuingCaAddedPayload {
  tenantId: string;
  /** The new issuing CA. */
  caId: string;
  /** DER of its certificate, base64. */
  certificateDer: string;
  notBefore: string;
  notAfter: string;
  /** The root that signed it. */
  issuerCaId: string;
  /** DER of the root certificate, base64: a responder that never saw an issuing CA needs it. */
  rootCertificateDer: string;
  /** The CA that signed leaves until now (the previous issuing CA, or the root). */
  previousCaId: string;
  addedBy?: string;
}
