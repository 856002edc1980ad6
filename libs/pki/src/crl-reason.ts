/**
 * CRLReason ::= ENUMERATED (RFC 5280 5.3.1), used by CRL entries and by OCSP revokedInfo
 * (RFC 6960 4.2.1). Value 7 is not used; removeFromCRL (8) only appears in delta CRLs, which this
 * CA does not issue, so it is refused as well.
 */
export const CRL_REASON = {
  unspecified: 0,
  keyCompromise: 1,
  cACompromise: 2,
  affiliationChanged: 3,
  superseded: 4,
  cessationOfOperation: 5,
  certificateHold: 6,
  privilegeWithdrawn: 9,
  aACompromise: 10,
} as const;
export type CrlReasonName = keyof typeof CRL_REASON;

const CODES = new Set<number>(Object.values(CRL_REASON));

/** Whether `code` is a CRLReason this CA writes. */
export function isCrlReasonCode(code: number): boolean {
  return CODES.has(code);
}

/** Throws RangeError unless `code` is a CRLReason this CA writes. */
export function assertCrlReasonCode(code: number): void {
  if (!CODES.has(code)) {
    throw new RangeError(`${code} is not a CRLReason code (RFC 5280 5.3.1: 0 to 6, 9 or 10)`);
  }
}

const REMOVE_FROM_CRL = 8;

/**
 * The reason to publish for a revocation recorded with `code`. The API accepts removeFromCRL (8)
 * because the specification lists it, but in a full CRL or an OCSP answer it has no meaning
 * (RFC 5280 5.3.1: delta CRLs only), so such an entry is published without a reason, as unspecified.
 */
export function publishedReasonCode(code: number): number | undefined {
  if (code === REMOVE_FROM_CRL) return undefined;
  return isCrlReasonCode(code) ? code : undefined;
}
