/**
 * Machine-readable error codes that cross the transport unchanged (docs/api.md#errors `code`).
 * The gateway maps each to an HTTP status and a Problem Details document at the edge.
 */
export const ErrorCode = {
  ValidationFailed: 'VALIDATION_FAILED',
  NotFound: 'NOT_FOUND',
  Forbidden: 'FORBIDDEN',
  Conflict: 'CONFLICT',
  CertificateLimitReached: 'CERTIFICATE_LIMIT_REACHED',
  CertificateNotOnHold: 'CERTIFICATE_NOT_ON_HOLD',
  /** revoke-matching: the filter matches another number than expectedCount; nothing was revoked. */
  CountMismatch: 'COUNT_MISMATCH',
  /** The tenant's issuing CA is revoked: nothing is signed with it (docs/api.md#revoke-an-issuing-ca). */
  IssuingCaRevoked: 'ISSUING_CA_REVOKED',
  /** The issuing CA waits for its certificate from the corporate root (docs/api.md#external-root). */
  IssuingCaPending: 'ISSUING_CA_PENDING',
  /** docs/api.md#external-root upload: `certificatePem` or `chainPem` is not PEM X.509 certificates. */
  CaCertificateInvalid: 'CA_CERTIFICATE_INVALID',
  /** The uploaded certificate certifies another key than the pending CA's (the one of its CSR). */
  CaCertificateKeyMismatch: 'CA_CERTIFICATE_KEY_MISMATCH',
  /** The uploaded certificate is no CA certificate (basicConstraints cA, keyUsage keyCertSign). */
  CaCertificateNotCa: 'CA_CERTIFICATE_NOT_CA',
  /** A certificate of the upload is expired or not valid yet. */
  CaCertificateNotValidNow: 'CA_CERTIFICATE_NOT_VALID_NOW',
  /** A certificate of the upload is not signed by the next one, or the last is not self-signed. */
  CaChainSignatureInvalid: 'CA_CHAIN_SIGNATURE_INVALID',
  /** An issuer's pathLenConstraint allows no CA as deep as ours (RFC 5280 4.2.1.9). */
  CaChainPathLengthExceeded: 'CA_CHAIN_PATH_LENGTH_EXCEEDED',
  /** The uploaded certificate ends after a certificate of its chain (RFC 5280 6.1.3 (a)(2)). */
  CaCertificateOutlivesChain: 'CA_CERTIFICATE_OUTLIVES_CHAIN',
  /** A certificate of `chainPem` may not certify CAs (basicConstraints cA, keyUsage keyCertSign). */
  CaChainIssuerNotCa: 'CA_CHAIN_ISSUER_NOT_CA',
  /**
   * A later issuing CA's upload ends with another self-signed root than the tenant's corporate root
   * already recorded (docs/api.md#external-root): one trust anchor per tenant.
   */
  CaChainRootMismatch: 'CA_CHAIN_ROOT_MISMATCH',
  /** The certificate, CRL or OCSP response to be signed broke a pre-signing lint; nothing was signed. */
  CertificateLintFailed: 'CERTIFICATE_LINT_FAILED',
  /** A DNS name of the request is outside the tenant's issuance policy (docs/api.md#issuance-policy). */
  NameNotAllowedByPolicy: 'NAME_NOT_ALLOWED_BY_POLICY',
  /** The request's usage (v1: Client) is not among the policy's `allowedUsages` (docs/api.md#issuance-policy). */
  UsageNotAllowedByPolicy: 'USAGE_NOT_ALLOWED_BY_POLICY',
  /**
   * Revoking an issuing CA that a corporate root certified (docs/api.md#external-root): only the
   * corporate CA, whose key is not held here, can publish that revocation.
   */
  RevokeAtCorporateCa: 'REVOKE_AT_CORPORATE_CA',
  /** `csrPem` is not one PEM PKCS#10 request, or is too large (docs/api.md#csr-issuance). */
  CsrInvalid: 'CSR_INVALID',
  /** The CSR's self-signature does not verify with its own key (RFC 2986 section 3). */
  CsrSignatureInvalid: 'CSR_SIGNATURE_INVALID',
  /** The CSR's key is one the tenant revoked a certificate of for keyCompromise (docs/api.md#csr-issuance). */
  CsrKeyCompromised: 'CSR_KEY_COMPROMISED',
  /** The CSR's key is of a type this CA does not certify. */
  CsrKeyNotAllowed: 'CSR_KEY_NOT_ALLOWED',
  InvalidToken: 'invalid_token',
  ExpiredToken: 'expired_token',
  PayloadTooLarge: 'PAYLOAD_TOO_LARGE',
  RequestHeadersTooLarge: 'REQUEST_HEADERS_TOO_LARGE',
  RateLimited: 'RATE_LIMITED',
  ServiceUnavailable: 'SERVICE_UNAVAILABLE',
  Internal: 'INTERNAL_ERROR',
} as const;

export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

export const isErrorCode = (value: unknown): value is ErrorCode =>
  typeof value === 'string' && (Object.values(ErrorCode) as string[]).includes(value);
