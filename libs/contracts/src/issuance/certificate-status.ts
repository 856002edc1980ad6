/** docs/api.md#certificate-fields-and-status status values. Expired is derived from notAfter; Revoked from the revocation record. */
export const CertificateStatus = { Active: 'Active', Revoked: 'Revoked', Expired: 'Expired' } as const;
export type CertificateStatus = (typeof CertificateStatus)[keyof typeof CertificateStatus];

/** docs/api.md#issue-a-certificate-v1 responseFormat: PEM inline, or pre-signed download links. */
export const ResponseFormat = { Text: 'Text', File: 'File' } as const;
export type ResponseFormat = (typeof ResponseFormat)[keyof typeof ResponseFormat];

/** docs/api.md#revoke-a-certificate reasonCode names and their RFC 5280 section 5.3.1 CRLReason numbers (7 is unused). */
export const RevocationReasonCodes = {
  Unspecified: 0,
  KeyCompromise: 1,
  CaCompromise: 2,
  AffiliationChanged: 3,
  Superseded: 4,
  CessationOfOperation: 5,
  CertificateHold: 6,
  RemoveFromCrl: 8,
  PrivilegeWithdrawn: 9,
  AaCompromise: 10,
} as const;
export type RevocationReasonCode = keyof typeof RevocationReasonCodes;
export const REVOCATION_REASON_CODES = Object.keys(RevocationReasonCodes) as RevocationReasonCode[];

/**
 * The reason codes a revocation may carry. removeFromCRL (8) is left out: RFC 5280 5.3.1 has it
 * only in delta CRLs, to undo a certificateHold entry; a hold is undone by releasing it instead.
 */
export const ACCEPTED_REVOCATION_REASON_CODES = REVOCATION_REASON_CODES.filter(
  (code) => code !== 'RemoveFromCrl',
);

/**
 * Reasons RFC 5280 5.3.1 reserves for CA certificates (cACompromise) and attribute authorities
 * (aACompromise): refused for the end-entity certificates this API issues.
 */
export const CA_ONLY_REVOCATION_REASON_CODES: readonly RevocationReasonCode[] = [
  'CaCompromise',
  'AaCompromise',
];
