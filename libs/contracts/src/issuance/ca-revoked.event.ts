/**
 * Payload of `ca.revoked`: an issuing CA revoked by an operator (docs/api.md#revoke-an-issuing-ca).
 * It goes on its root's CRL (`root.crl`) and OCSP answers `revoked` for it.
 */
export interface CaRevokedPayload {
  tenantId: string;
  /** The revoked issuing CA. */
  caId: string;
  /** The root that signed it, whose CRL lists it. */
  issuerCaId: string;
  /** Hex, as the certificate carries it. */
  serialNumber: string;
  revokedAt: string;
  /** RFC 5280 5.3.1 CRLReason number. */
  reasonCode: number;
  revokedBy?: string;
  /**
   * The revoked certificate is the cross certificate `issuerCaId` (the previous root) signed for
   * `caId`, a root made by renewal (docs/api.md#revoke-a-cross-certificate), not `caId` itself.
   */
  crossCertificate?: true;
}
