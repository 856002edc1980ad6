/** Payload of `certificate.issued`: what the public surface needs to answer OCSP "good". */
export interface CertificateIssuedPayload {
  tenantId: string;
  certificateId: string;
  caId: string;
  serialNumber: string;
  notBefore: string;
  notAfter: string;
  /** The certificate this one renews, when it is a renewal. */
  renewedFrom?: string;
  /** The principal (token subject) whose command issued it; absent in events recorded before it was kept. */
  issuedBy?: string;
}

/**
 * Payload of `certificate.revoked`. Carries the RFC 5280 reason number only: the free-text
 * reason stays in issuance and the audit log (spec 4.1.6).
 */
export interface CertificateRevokedPayload {
  tenantId: string;
  certificateId: string;
  caId: string;
  serialNumber: string;
  revokedAt: string;
  reasonCode: number;
  /** The principal (token subject) whose command revoked it; absent in events recorded before it was kept. */
  revokedBy?: string;
}
