import { ErrorCode } from '@ca/contracts';

export interface ProblemClass {
  status: number;
  /** `{common|ca-manager}/{slug}` under ERROR_CATALOG_URL (docs/api.md#errors). */
  path: string;
  title: string;
  recovery: string;
}

/** One entry per error code: the only place codes meet HTTP statuses. */
export const PROBLEM_CATALOG: Record<ErrorCode, ProblemClass> = {
  [ErrorCode.ValidationFailed]: {
    status: 400,
    path: 'common/validation-failed',
    title: 'Validation failed',
    recovery: 'Correct the fields listed in errors and send the request again.',
  },
  [ErrorCode.InvalidToken]: {
    status: 401,
    path: 'common/unauthorized',
    title: 'Unauthorized',
    recovery: 'Send a valid bearer token (JWT) in the Authorization header.',
  },
  [ErrorCode.ExpiredToken]: {
    status: 401,
    path: 'common/unauthorized',
    title: 'Token expired',
    recovery: 'Obtain a fresh token from your identity provider and retry.',
  },
  [ErrorCode.Forbidden]: {
    status: 403,
    path: 'common/forbidden',
    title: 'Forbidden',
    recovery: 'Use a token of the owning tenant with the required scope, or contact the operator.',
  },
  [ErrorCode.NotFound]: {
    status: 404,
    path: 'common/not-found',
    title: 'Not found',
    recovery: 'Check the identifier; resources of other tenants are not visible.',
  },
  [ErrorCode.Conflict]: {
    status: 409,
    path: 'ca-manager/conflict',
    title: 'Conflict',
    recovery: 'The resource is already in the requested state; read it instead of changing it again.',
  },
  [ErrorCode.CertificateLimitReached]: {
    status: 409,
    path: 'ca-manager/certificate-limit-reached',
    title: 'Certificate limit reached',
    recovery: 'Revoke certificates that are no longer needed or ask the operator to raise the plan limit.',
  },
  [ErrorCode.IssuingCaRevoked]: {
    status: 409,
    path: 'ca-manager/issuing-ca-revoked',
    title: 'Issuing CA revoked',
    recovery:
      "The tenant's issuing CA was revoked by an operator; no certificate is issued until a new issuing CA exists.",
  },
  [ErrorCode.IssuingCaPending]: {
    status: 409,
    path: 'ca-manager/issuing-ca-pending',
    title: 'Issuing CA pending',
    recovery:
      "The tenant's issuing CA waits for its certificate from your corporate root: have the CSR signed and upload it with PUT /v2/ca/{caId}/certificate.",
  },
  [ErrorCode.RevokeAtCorporateCa]: {
    status: 409,
    path: 'ca-manager/revoke-at-corporate-ca',
    title: 'Revoke at the corporate CA',
    recovery:
      'Your corporate root certified this issuing CA and only it can publish the revocation: revoke the CA at your corporate CA (its CRL and OCSP, where relying parties look), then add a new issuing CA with POST /v2/ca/issuing and upload its certificate, which retires this one here.',
  },
  [ErrorCode.CaCertificateInvalid]: {
    status: 400,
    path: 'ca-manager/ca-certificate-invalid',
    title: 'CA certificate unreadable',
    recovery:
      'Send certificatePem as one PEM certificate and chainPem as the PEM certificates of its issuers, up to and including the root.',
  },
  [ErrorCode.CaCertificateKeyMismatch]: {
    status: 400,
    path: 'ca-manager/ca-certificate-key-mismatch',
    title: 'CA certificate for another key',
    recovery: "Have the pending CA's own CSR (csrPem of GET /v2/ca) signed, and upload that certificate.",
  },
  [ErrorCode.CaCertificateNotCa]: {
    status: 400,
    path: 'ca-manager/ca-certificate-not-ca',
    title: 'Not a CA certificate',
    recovery:
      "Sign the CSR as a CA: basicConstraints critical,CA:TRUE and keyUsage keyCertSign, cRLSign (the CSR's requested extensions).",
  },
  [ErrorCode.CaCertificateNotValidNow]: {
    status: 400,
    path: 'ca-manager/ca-certificate-not-valid-now',
    title: 'Certificate not valid now',
    recovery: 'Every certificate uploaded must be valid now: sign a new one, or renew the expired issuer.',
  },
  [ErrorCode.CaChainSignatureInvalid]: {
    status: 400,
    path: 'ca-manager/ca-chain-signature-invalid',
    title: 'Chain does not verify',
    recovery:
      'List in chainPem the issuer of the certificate first, then its issuer, and so on, ending with the self-signed root.',
  },
  [ErrorCode.CaCertificateOutlivesChain]: {
    status: 400,
    path: 'ca-manager/ca-certificate-outlives-chain',
    title: 'CA certificate outlives its chain',
    recovery:
      'Have your corporate CA sign the CSR again with a notAfter no later than that of every certificate of chainPem, then upload it.',
  },
  [ErrorCode.CaChainPathLengthExceeded]: {
    status: 400,
    path: 'ca-manager/ca-chain-path-length-exceeded',
    title: 'Path length constraint exceeded',
    recovery: 'Sign with a CA whose pathLenConstraint allows one more CA below it (pathlen:0 forbids any).',
  },
  [ErrorCode.CaChainIssuerNotCa]: {
    status: 400,
    path: 'ca-manager/ca-chain-issuer-not-ca',
    title: 'Issuer is not a CA',
    recovery: 'Every issuer in chainPem must be a CA certificate (CA:TRUE) with keyUsage keyCertSign.',
  },
  [ErrorCode.CaChainRootMismatch]: {
    status: 400,
    path: 'ca-manager/ca-chain-root-mismatch',
    title: 'Chain ends at another root',
    recovery:
      "End chainPem with the tenant's corporate root (ca.pem) and have the CSR signed under it; a tenant keeps one trust anchor.",
  },
  [ErrorCode.CertificateNotOnHold]: {
    status: 409,
    path: 'ca-manager/certificate-not-on-hold',
    title: 'Certificate not on hold',
    recovery:
      'Only a certificate revoked with reasonCode CertificateHold can be released; read it to see its status.',
  },
  [ErrorCode.CountMismatch]: {
    status: 409,
    path: 'ca-manager/count-mismatch',
    title: 'Count mismatch',
    recovery:
      'The filter now matches another number of certificates than expectedCount; nothing was revoked. Run the dry run again and confirm the new count.',
  },
  // 400: what reaches the linter through the admin API was derived from the request (subject, names,
  // extensions, validity), so the request is what has to change. See docs/lints.md.
  [ErrorCode.CertificateLintFailed]: {
    status: 400,
    path: 'ca-manager/certificate-lint-failed',
    title: 'Certificate lint failed',
    recovery:
      'Nothing was signed: the certificate this request asks for breaks the profile rules listed in errors. Change the request, or contact support with the requestId if it looks valid.',
  },
  [ErrorCode.NameNotAllowedByPolicy]: {
    status: 400,
    path: 'ca-manager/name-not-allowed-by-policy',
    title: 'Name not allowed by the issuance policy',
    recovery:
      "Ask only for names under the tenant's allowed DNS suffixes (GET /v2/policy), or have a tenant admin extend the policy.",
  },
  [ErrorCode.UsageNotAllowedByPolicy]: {
    status: 400,
    path: 'ca-manager/usage-not-allowed-by-policy',
    title: 'Usage not allowed by the issuance policy',
    recovery:
      "Ask for a usage among the tenant's allowedUsages (GET /v2/policy; ClientAndServer needs both), or have a tenant admin allow it.",
  },
  [ErrorCode.CsrInvalid]: {
    status: 400,
    path: 'ca-manager/csr-invalid',
    title: 'Invalid certificate request',
    recovery:
      'Send one PEM PKCS#10 request ("-----BEGIN CERTIFICATE REQUEST-----", at most 16 KiB) in csrPem, e.g. from openssl req -new.',
  },
  [ErrorCode.CsrSignatureInvalid]: {
    status: 400,
    path: 'ca-manager/csr-signature-invalid',
    title: 'Certificate request signature invalid',
    recovery: 'Sign the request with the private key of the public key it carries, and send it unchanged.',
  },
  [ErrorCode.CsrKeyCompromised]: {
    status: 400,
    path: 'ca-manager/csr-key-compromised',
    title: 'CSR key compromised',
    recovery:
      'A certificate for this key was revoked for keyCompromise, so it is certified no more: generate a new key pair and send a CSR for it.',
  },
  [ErrorCode.CsrKeyNotAllowed]: {
    status: 400,
    path: 'ca-manager/csr-key-not-allowed',
    title: 'Key type not allowed',
    recovery:
      'Make the request for a key of an allowed type (an ECDSA P-256 key: openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256).',
  },
  [ErrorCode.PayloadTooLarge]: {
    status: 413,
    path: 'common/payload-too-large',
    title: 'Payload too large',
    recovery: 'Send a smaller request body; requests of this API are a few kilobytes at most.',
  },
  [ErrorCode.RequestHeadersTooLarge]: {
    status: 431,
    path: 'common/request-headers-too-large',
    title: 'Request header fields too large',
    recovery: 'Send smaller headers; a bearer token of this API is a few kilobytes at most.',
  },
  [ErrorCode.RateLimited]: {
    status: 429,
    path: 'common/rate-limited',
    title: 'Too many requests',
    recovery: 'Wait for the number of seconds in Retry-After, then retry.',
  },
  [ErrorCode.ServiceUnavailable]: {
    status: 503,
    path: 'common/service-unavailable',
    title: 'Service unavailable',
    recovery: 'Retry shortly; the request had no effect if this status was returned before it was processed.',
  },
  [ErrorCode.Internal]: {
    status: 500,
    path: 'common/internal-error',
    title: 'Internal server error',
    recovery: 'Retry later; if it persists, contact support with the requestId.',
  },
};
