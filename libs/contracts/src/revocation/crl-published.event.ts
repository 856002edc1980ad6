/** Payload of `crl.published`: a newly signed CRL of a tenant, handed over through the BlobStore. */
export interface CrlPublishedPayload {
  tenantId: string;
  /** CRLNumber (RFC 5280 5.2.3) as a decimal string: it may exceed 2^53. */
  crlNumber: string;
  thisUpdate: string;
  nextUpdate: string;
  /** BlobStore reference of the DER CertificateList. */
  blobRef: string;
  /** SHA-256 of the DER, hex, to check what was fetched. */
  sha256: string;
  /**
   * `root`: the root's CRL (`root.crl`, listing revoked issuing CAs); absent: the CRL of the CA
   * that signs leaves (`crl`). docs/api.md#distribution-points
   */
  issuer?: CrlIssuer;
  /**
   * The CA whose CRL this is, for a CRL of a CA that signs (or signed) leaves; absent in older
   * events (then: the tenant's CA that signs leaves). docs/api.md#add-an-issuing-ca
   */
  caId?: string;
}

/** Which of a tenant's CAs a CRL is of, when it is not the CA that signs leaves. */
export type CrlIssuer = 'root';
export const ROOT_CRL_ISSUER: CrlIssuer = 'root';
