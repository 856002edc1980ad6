import type { OpenAPIObject } from '@nestjs/swagger';

type Operation = {
  operationId?: string;
  security?: unknown[];
  parameters?: { in?: string }[];
  requestBody?: unknown;
  responses: Record<string, { description?: string; headers?: Record<string, unknown>; content?: unknown }>;
};

const PROBLEM = 'ProblemDetails';
const PROBLEM_REF = { $ref: `#/components/schemas/${PROBLEM}` };
const RATE_LIMIT_HEADERS = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'RateLimit-Policy'];

/** docs/api.md#errors / RFC 9457: the body of every error answer of this API. */
const PROBLEM_SCHEMA = {
  type: 'object',
  required: ['type', 'title', 'status', 'detail', 'code', 'recovery', 'requestId'],
  properties: {
    type: { type: 'string', format: 'uri', description: 'ERROR_CATALOG_URL followed by the problem class.' },
    title: { type: 'string' },
    status: { type: 'integer', format: 'int32' },
    detail: { type: 'string' },
    instance: { type: 'string', description: 'The request path.' },
    code: {
      type: 'string',
      description: 'Machine-readable code, e.g. VALIDATION_FAILED, CERTIFICATE_LIMIT_REACHED.',
    },
    recovery: { type: 'string', description: 'What the caller can do about it.' },
    requestId: { type: 'string', description: 'X-Request-Id of the request, also in the audit log.' },
    errors: {
      type: 'array',
      description: 'On 400 only: one entry per field that failed.',
      items: {
        type: 'object',
        required: ['field', 'message'],
        properties: { field: { type: 'string' }, message: { type: 'string' } },
      },
    },
  },
};

const HEADERS = {
  'Retry-After': {
    description: 'Seconds until the tenant may call again (RFC 9110 10.2.3).',
    schema: { type: 'integer', minimum: 1 },
  },
  'RateLimit-Limit': {
    description: 'Requests per tenant per window (RATE_LIMIT_PER_MINUTE).',
    schema: { type: 'integer' },
  },
  'RateLimit-Remaining': { description: 'Requests left in the current window.', schema: { type: 'integer' } },
  'RateLimit-Reset': { description: 'Seconds until the window resets.', schema: { type: 'integer' } },
  'RateLimit-Policy': {
    description: 'The limit and its window, e.g. `600;w=60`.',
    schema: { type: 'string' },
  },
  'WWW-Authenticate': {
    description: 'RFC 6750: `Bearer error="invalid_token"`.',
    schema: { type: 'string' },
  },
};

const DESCRIPTIONS: Record<string, string> = {
  '400': 'Validation failed (VALIDATION_FAILED); `errors` names each field.',
  '401': 'Missing, invalid or expired bearer token (invalid_token, expired_token).',
  '403': 'The token lacks the scope of this operation, or the tenant is suspended (FORBIDDEN).',
  '404': 'Not found (NOT_FOUND).',
  '409': 'Conflict (CONFLICT) or the plan limit is reached (CERTIFICATE_LIMIT_REACHED).',
  '413': 'The request body is too large (PAYLOAD_TOO_LARGE).',
  '431': 'The request headers are too large (REQUEST_HEADERS_TOO_LARGE).',
  '429': "The tenant's rate limit is used up (RATE_LIMITED); retry after Retry-After seconds.",
  '500': 'Unexpected error (INTERNAL_ERROR); the request id identifies it in the logs.',
  '503': 'A dependency does not answer (SERVICE_UNAVAILABLE); retry shortly.',
};

const ISSUANCE_400 =
  "Validation failed (VALIDATION_FAILED; `errors` names each field), a name outside the tenant's issuance " +
  'policy (NAME_NOT_ALLOWED_BY_POLICY; `errors` names each name), a usage the policy does not allow ' +
  '(USAGE_NOT_ALLOWED_BY_POLICY), or a pre-signing lint failed ' +
  '(CERTIFICATE_LINT_FAILED).';
const ISSUANCE_V2_400 = `${ISSUANCE_400} With csrPem also CSR_INVALID, CSR_SIGNATURE_INVALID, CSR_KEY_NOT_ALLOWED or CSR_KEY_COMPROMISED.`;

/** docs/api.md#external-root: each refused upload has its own code. */
const UPLOAD_CA_400 =
  'Validation failed (VALIDATION_FAILED), or the upload is refused, changing nothing: CA_CERTIFICATE_INVALID, ' +
  'CA_CERTIFICATE_KEY_MISMATCH, CA_CERTIFICATE_NOT_CA, CA_CERTIFICATE_NOT_VALID_NOW, CA_CHAIN_SIGNATURE_INVALID, ' +
  'CA_CHAIN_ISSUER_NOT_CA, CA_CHAIN_PATH_LENGTH_EXCEEDED, or, for a later issuing CA, CA_CHAIN_ROOT_MISMATCH ' +
  "(the chain ends at another root than the tenant's corporate root).";

/** The 400 answer of the operations that make a certificate, which has more causes than validation. */
const OPERATION_400: Record<string, string> = {
  uploadCaCertificate: UPLOAD_CA_400,
  issueCertificate: ISSUANCE_400,
  issueCertificateV2: ISSUANCE_V2_400,
  renewCertificate: ISSUANCE_400,
  renewCertificateV2: ISSUANCE_V2_400,
};

/** Which admin operations can answer which error, beyond those every admin operation can. */
const OPERATION_ERRORS: Record<string, string[]> = {
  initializeCa: ['409'],
  addIssuingCa: ['404', '409'],
  uploadCaCertificate: ['404', '409'],
  issueCertificate: ['404', '409'],
  issueCertificateV2: ['404', '409'],
  renewCertificate: ['404', '409'],
  renewCertificateV2: ['404', '409'],
  revokeCertificate: ['404', '409'],
  releaseCertificateHold: ['404', '409'],
  getCertificate: ['404'],
  download: ['404'],
  deleteWebhook: ['404'],
  testWebhook: ['404'],
  listWebhookDeliveries: ['404'],
};

/**
 * Adds the error answers the code gives (docs/api.md#errors) to the generated document: Problem Details
 * bodies, 429 with Retry-After, RateLimit-* headers on every answer of a rate-limited (bearer)
 * operation, 431, 503 and 500 everywhere but the health probes. The status lists mirror the
 * guard (401/403/429), the body parser (400/413), the header limit (431) and the services' CaErrors.
 */
export function documentErrorResponses(document: OpenAPIObject): void {
  document.components ??= {};
  document.components.schemas = { ...document.components.schemas, [PROBLEM]: PROBLEM_SCHEMA };
  document.components.headers = { ...document.components.headers, ...HEADERS };
  for (const [path, item] of Object.entries(document.paths)) {
    if (path.startsWith('/health/')) continue; // probes answer 200 or 503 { status } as they always did
    for (const operation of Object.values(item) as Operation[]) {
      if (typeof operation !== 'object' || !operation?.responses) continue;
      const rateLimited = (operation.security ?? []).length > 0;
      const statuses = new Set<string>([
        '431',
        '500',
        '503',
        ...(OPERATION_ERRORS[operation.operationId ?? ''] ?? []),
      ]);
      if (rateLimited) ['401', '403', '429'].forEach((s) => statuses.add(s));
      if (operation.requestBody) ['400', '413'].forEach((s) => statuses.add(s));
      if ((operation.parameters ?? []).some((p) => p.in === 'path' || p.in === 'query') && rateLimited)
        statuses.add('400');
      for (const status of [...statuses].sort()) {
        operation.responses[status] ??= {
          description:
            (status === '400' && OPERATION_400[operation.operationId ?? '']) || DESCRIPTIONS[status],
          content: { 'application/problem+json': { schema: PROBLEM_REF } },
        };
      }
      if (rateLimited) {
        for (const [status, response] of Object.entries(operation.responses)) {
          response.headers = {
            ...response.headers,
            ...(status === '401' ? { 'WWW-Authenticate': ref('WWW-Authenticate') } : {}),
            // Counted after the token is verified: 401 answers carry no tenant limit.
            ...(status === '401' ? {} : Object.fromEntries(RATE_LIMIT_HEADERS.map((h) => [h, ref(h)]))),
            ...(status === '429' ? { 'Retry-After': ref('Retry-After') } : {}),
          };
        }
      }
    }
  }
}

function ref(header: string) {
  return { $ref: `#/components/headers/${header}` };
}
