/**
 * `issuance.crl.revocations`, asked by revocation only: the revocations issuance has recorded for
 * one CA that signs leaves, so revocation can reconcile its ledger with them when issuance refuses
 * a CRL (a forged or replayed `certificate.revoked` must never freeze the CA's CRL).
 */
export interface CrlRevocationsQuery {
  tenantId: string;
  caId: string;
}

export interface RecordedRevocation {
  certificateId: string;
  /** Uppercase hex, as in the ledger. */
  serialNumber: string;
  revokedAt: string;
  /** RFC 5280 CRLReason as recorded. */
  reasonCode: number;
}

export interface CrlRevocationsResult {
  revocations: RecordedRevocation[];
}
