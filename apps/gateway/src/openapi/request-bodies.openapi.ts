import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ACCEPTED_REVOCATION_REASON_CODES,
  AddIssuingCaRequest,
  ALL_POLICY_USAGES,
  CA_REVOCATION_REASON_CODES,
  CaHierarchy,
  CertificateUsage,
  InitializeCaRequest,
  InitializeCaV2Request,
  IssuancePolicyRequest,
  IssueCertificateRequest,
  IssueCertificateV2Request,
  KEY_ALGORITHMS,
  MAX_CUSTOM_EXTENSION_TEXT,
  MAX_CUSTOM_EXTENSIONS,
  MAX_ISSUING_CA_VALIDITY_DAYS,
  MAX_POLICY_SUFFIXES,
  MAX_ROOT_VALIDITY_YEARS,
  MAX_SANS,
  MAX_SERVER_VALIDITY_DAYS,
  PutAcmeProfileRequest,
  ReleaseHoldRequest,
  ReplaceLeavesRequest,
  RenewCertificateRequest,
  RenewCertificateV2Request,
  RenewRootRequest,
  RevokeCaRequest,
  RevokeCertificateRequest,
  UploadCaCertificateRequest,
} from '@ca/contracts';
import {
  RSA_2048_NOTE,
  auditReasonProperty,
  countryProperty,
  csrPemProperty,
  leafKeyAlgorithmProperty,
  passwordProtectedProperty,
  pkcs12ProfileProperty,
  responseFormatProperty,
  subjectNameProperty,
  validityProperty,
} from './request-fields.openapi';

/**
 * The OpenAPI schemas of the request bodies (docs/api.md): the DTO classes of libs/contracts hold
 * the wire shape and its validation only, so the gateway, which publishes the description, adds
 * the documentation to them here. A parent class is described before its subclasses, whose
 * schemas list the inherited properties first.
 */
const BODIES: [type: abstract new () => object, properties: Record<string, PropertyDecorator>][] = [
  [
    InitializeCaRequest,
    {
      commonName: subjectNameProperty('Acme Partner Root'),
      organization: subjectNameProperty('Acme'),
      country: countryProperty(),
      validityYears: validityProperty(30, 10),
    },
  ],
  [
    InitializeCaV2Request,
    {
      hierarchy: ApiPropertyOptional({
        enum: Object.values(CaHierarchy),
        default: CaHierarchy.RootAndIssuing,
      }),
      keyAlgorithm: ApiPropertyOptional({
        enum: KEY_ALGORITHMS,
        description: `Default: the deployment's key algorithm (KEY_ALGORITHM, P-256 unless set). ${RSA_2048_NOTE}`,
      }),
    },
  ],
  [
    AddIssuingCaRequest,
    {
      keyAlgorithm: ApiPropertyOptional({
        enum: KEY_ALGORITHMS,
        description: `Default: the root's key algorithm. ${RSA_2048_NOTE}`,
      }),
      validityDays: ApiPropertyOptional({
        type: 'integer',
        minimum: 1,
        maximum: MAX_ISSUING_CA_VALIDITY_DAYS,
        description:
          "Default: until the root expires. Longer than the root's remaining validity: 400. Under a corporate root (ExternalRoot): 400, the corporate CA sets it.",
      }),
    },
  ],
  [
    UploadCaCertificateRequest,
    {
      certificatePem: ApiProperty({
        description: 'PEM of the certificate the corporate CA made from csrPem.',
      }),
      chainPem: ApiProperty({
        description:
          "PEM certificates of the certificate's issuers, its issuer first, up to and including the self-signed corporate root.",
      }),
    },
  ],
  [
    RenewRootRequest,
    {
      keyAlgorithm: ApiPropertyOptional({
        enum: KEY_ALGORITHMS,
        description: `Default: the current root's key algorithm. ${RSA_2048_NOTE}`,
      }),
      validityYears: ApiPropertyOptional({
        type: 'integer',
        minimum: 1,
        maximum: MAX_ROOT_VALIDITY_YEARS,
        description: "Default: the current root's lifetime in whole years (at least 1).",
      }),
    },
  ],
  [
    RevokeCaRequest,
    {
      reason: auditReasonProperty(),
      reasonCode: ApiProperty({ enum: CA_REVOCATION_REASON_CODES, description: 'RFC 5280 5.3.1 CRLReason.' }),
    },
  ],
  [
    IssueCertificateRequest,
    {
      clientId: ApiProperty({
        minLength: 1,
        maxLength: 100,
        description: 'The OAuth2 client or system that will use the certificate for mTLS.',
      }),
      commonName: subjectNameProperty('payments-client'),
      organization: subjectNameProperty('Acme'),
      organizationalUnit: subjectNameProperty('Payments'),
      country: countryProperty(),
      validityDays: validityProperty(3650, 365),
      responseFormat: responseFormatProperty(),
      passwordProtected: passwordProtectedProperty(),
    },
  ],
  [
    IssueCertificateV2Request,
    {
      keyAlgorithm: leafKeyAlgorithmProperty(),
      usage: ApiPropertyOptional({ enum: Object.values(CertificateUsage), default: CertificateUsage.Client }),
      subjectAlternativeNames: ApiPropertyOptional({
        type: [String],
        maxItems: MAX_SANS,
        description:
          'DNS names (single-level wildcard allowed as the left-most label); required for Server and ClientAndServer.',
      }),
      mustStaple: ApiPropertyOptional({
        default: false,
        description: 'TLS Feature status_request (RFC 7633); Server and ClientAndServer only.',
      }),
      customExtensions: ApiPropertyOptional({
        type: 'object',
        additionalProperties: { type: 'string', maxLength: MAX_CUSTOM_EXTENSION_TEXT },
        maxProperties: MAX_CUSTOM_EXTENSIONS,
        description:
          'Embedded as extensions 1.3.6.1.4.1.99999.2.{n} holding SEQUENCE { key, value } (UTF8String).',
      }),
      pkcs12Profile: pkcs12ProfileProperty(),
      csrPem: csrPemProperty(),
    },
  ],
  [
    RenewCertificateRequest,
    {
      validityDays: validityProperty(3650, 365),
      responseFormat: responseFormatProperty(),
      passwordProtected: passwordProtectedProperty(),
    },
  ],
  [
    RenewCertificateV2Request,
    {
      keyAlgorithm: leafKeyAlgorithmProperty(),
      pkcs12Profile: pkcs12ProfileProperty(),
      csrPem: csrPemProperty(),
    },
  ],
  [
    RevokeCertificateRequest,
    {
      reason: auditReasonProperty(),
      reasonCode: ApiPropertyOptional({
        enum: ACCEPTED_REVOCATION_REASON_CODES,
        default: 'Unspecified',
        description:
          'RFC 5280 5.3.1 CRLReason. `RemoveFromCrl` is refused (400): it belongs in delta CRLs only; ' +
          'undo a `CertificateHold` with `POST /v2/certificates/{id}/release-hold`. `CaCompromise` and ' +
          '`AaCompromise` are refused (400) for the end-entity certificates this API issues: they are ' +
          'reasons for CA and attribute-authority certificates.',
      }),
    },
  ],
  [ReplaceLeavesRequest, { reason: auditReasonProperty() }],
  [
    ReleaseHoldRequest,
    {
      reason: ApiPropertyOptional({
        minLength: 1,
        maxLength: 255,
        description: 'Free text kept with the hold history for the audit; never in the CRL or OCSP answers.',
      }),
    },
  ],
  [
    IssuancePolicyRequest,
    {
      allowedDnsSuffixes: ApiProperty({
        type: [String],
        maxItems: MAX_POLICY_SUFFIXES,
        example: ['example.com', 'internal.example.net'],
        description:
          'DNS suffixes (A-labels, no wildcard) under which the tenant may certify names. A name is allowed ' +
          'when it equals a suffix or ends with "." + suffix. Stored lower-cased and without duplicates. ' +
          'An empty list allows no DNS name at all; DELETE /v2/policy removes the policy.',
      }),
      allowedUsages: ApiPropertyOptional({
        enum: ALL_POLICY_USAGES,
        isArray: true,
        minItems: 1,
        example: ['Client'],
        description:
          'The leaf usages the tenant may issue: Client (EKU clientAuth), Server (serverAuth); a ' +
          'ClientAndServer leaf needs both. The issuing CA carries the same EKU. Absent (also on a PUT ' +
          'that replaces a policy which had it): both. Stored without duplicates, Client first.',
      }),
    },
  ],
  [
    PutAcmeProfileRequest,
    {
      description: ApiProperty({
        minLength: 1,
        maxLength: 255,
        description: "Shown in the directory's meta.profiles.",
      }),
      validityDays: ApiProperty({ minimum: 1, maximum: MAX_SERVER_VALIDITY_DAYS }),
      usage: ApiProperty({
        enum: ['Server', 'ClientAndServer'],
        description: "Must be allowed by the tenant's policy.",
      }),
      default: ApiPropertyOptional({ default: false, description: 'The profile of orders that name none.' }),
    },
  ],
];

let bodiesDescribed = false;

/** Adds the OpenAPI metadata of every request body to its DTO class, once, before the document is built. */
export function describeRequestBodies(): void {
  if (bodiesDescribed) return;
  bodiesDescribed = true;
  for (const [type, properties] of BODIES) {
    for (const [name, decorate] of Object.entries(properties)) decorate(type.prototype, name);
  }
}

/**
 * `type` with its description applied, for a gateway class that extends a request body: the
 * subclass's schema starts from its parent's only if the parent was described first.
 */
export function described<T extends abstract new () => object>(type: T): T {
  describeRequestBodies();
  return type;
}
