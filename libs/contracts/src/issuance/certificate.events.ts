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
  /** Subject commonName; absent in events recorded before it was carried (webhook payloads need it). */
  commonName?: string;
  /** The client the certificate was issued for; absent in older events. */
  clientId?: string;
  /** DNS subjectAlternativeNames; absent in older events. */
  subjectAlternativeNames?: string[];
  /**
   * The certificate's status sequence in issuance: 1 when issued, one more at each later change
   * (revoked, hold released). A consumer applies a status only if it is higher than the one it
   * holds, so a late or replayed event is a no-op. Absent in events recorded before it was kept.
   */
  sequence?: number;
}

/**
 * Payload of `certificate.revoked`. Carries the RFC 5280 reason number only: the free-text
 * reason stays in issuance and the audit log (docs/api.md#revoke-a-certificate).
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
  /**
   * The certificate's status sequence in issuance: 1 when issued, one more at each later change
   * (revoked, hold released). A consumer applies a status only if it is higher than the one it
   * holds, so a late or replayed event is a no-op. Absent in events recorded before it was kept.
   */
  sequence?: number;
}

/**
 * Payload of `certificate.hold-released`: a certificate revoked with certificateHold (6) is valid
 * again. Consumers drop the entry only while it is still that hold (same serial, reason 6 and
 * `heldSince` as its revocation date), so a stale or forged event cannot undo another revocation.
 * The free-text reason stays in issuance.
 */
export interface CertificateHoldReleasedPayload {
  tenantId: string;
  certificateId: string;
  caId: string;
  serialNumber: string;
  /** The revokedAt of the released hold. */
  heldSince: string;
  releasedAt: string;
  /** The principal that released it. */
  releasedBy: string;
  /**
   * The certificate's status sequence in issuance: 1 when issued, one more at each later change
   * (revoked, hold released). A consumer applies a status only if it is higher than the one it
   * holds, so a late or replayed event is a no-op. Absent in events recorded before it was kept.
   */
  sequence?: number;
}
