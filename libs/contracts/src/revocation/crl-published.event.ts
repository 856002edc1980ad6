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
}
