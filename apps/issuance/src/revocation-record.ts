/** What revoking writes on the row of a certificate or of an issuing CA (the same four columns). */
export interface RevocationRecord {
  revokedAt: Date;
  revocationReason: string;
  revocationReasonCode: number;
  revokedBy: string;
}

/**
 * A revocation made now by `principal`, its time to the whole second: a CRL or OCSP answer cannot
 * state fractions (RFC 5280 4.1.2.5.2), so the stored time is the one every answer tells.
 */
export function revocationNow(reason: string, reasonCode: number, principal: string): RevocationRecord {
  return {
    revokedAt: new Date(Math.floor(Date.now() / 1000) * 1000),
    revocationReason: reason,
    revocationReasonCode: reasonCode,
    revokedBy: principal,
  };
}

/** The fields `certificate.revoked` and `ca.revoked` carry about the revocation itself. */
export function revocationEventFields(record: RevocationRecord): {
  revokedAt: string;
  reasonCode: number;
  revokedBy: string;
} {
  return {
    revokedAt: record.revokedAt.toISOString(),
    reasonCode: record.revocationReasonCode,
    revokedBy: record.revokedBy,
  };
}
