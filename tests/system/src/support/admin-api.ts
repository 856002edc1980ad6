import { X509Certificate, createPrivateKey, randomUUID } from 'node:crypto';
import { pemToDer } from '@ca/pki';
import { HttpAnswer, http } from './http';
import { SystemUnderTest } from './system-under-test';

/** docs/api.md#issuance-answer in the Text format. */
export interface IssuedCertificate {
  certificateId: string;
  serialNumber: string;
  expiresAt: string;
  certificatePem: string;
  privateKeyPem: string;
}

/** docs/api.md#renew-a-certificate in the Text format. */
export interface RenewedCertificate {
  newCertificateId: string;
  serialNumber: string;
  expiresAt: string;
  certificatePem: string;
  privateKeyPem: string;
}

export interface RequestOptions {
  /** The bearer token; the tenant's own (all scopes) by default, null for none. */
  bearer?: string | null;
  /** A body sent as is instead of JSON.stringify(body). */
  raw?: string;
  headers?: Record<string, string>;
}

/** One tenant of the system under test, driven over the administrative API with real tokens. */
export interface TestTenant {
  tenantId: string;
  /** A token of this tenant with every scope. */
  bearer: string;
  /** The tenant CA (empty for a tenant created without one). */
  caPem: string;
  caDer: Buffer;
  caExpiresAt: string;
  get(path: string, options?: RequestOptions): Promise<HttpAnswer>;
  post(path: string, body: unknown, options?: RequestOptions): Promise<HttpAnswer>;
  /** A token of this tenant with exactly these scopes. */
  tokenWithScope(scope: string): Promise<string>;
  /** POST `path` (/v1/certificates by default) and expect 200. */
  issue(body: Record<string, unknown>, path?: string): Promise<IssuedCertificate>;
}

export async function adminRequest(
  sut: SystemUnderTest,
  method: string,
  path: string,
  bearer: string | null,
  body?: unknown,
  options: Omit<RequestOptions, 'bearer'> = {},
): Promise<HttpAnswer> {
  const headers: Record<string, string> = { ...options.headers };
  if (bearer !== null) headers.authorization = `Bearer ${bearer}`;
  const hasBody = options.raw !== undefined || body !== undefined;
  if (hasBody) headers['content-type'] ??= 'application/json';
  return http(`${sut.gatewayUrl}${path}`, {
    method,
    headers,
    ...(hasBody ? { body: options.raw ?? JSON.stringify(body) } : {}),
  });
}

/**
 * A tenant with a random id and (unless `ca: false`) a CA of `validityYears` (10 by default),
 * initialized over the API.
 */
export async function createTenant(
  sut: SystemUnderTest,
  options: {
    ca?: boolean;
    validityYears?: number;
    commonName?: string;
    organization?: string;
    country?: string;
  } = {},
): Promise<TestTenant> {
  const tenantId = randomUUID();
  const bearer = await sut.tokens.sign(tenantId);
  const get = (path: string, o: RequestOptions = {}) =>
    adminRequest(sut, 'GET', path, o.bearer === undefined ? bearer : o.bearer, undefined, o);
  const post = (path: string, body: unknown, o: RequestOptions = {}) =>
    adminRequest(sut, 'POST', path, o.bearer === undefined ? bearer : o.bearer, body, o);
  let caPem = '';
  let caExpiresAt = '';
  if (options.ca !== false) {
    const answer = await post('/v1/ca/initialize', {
      commonName: options.commonName ?? 'Lifecycle Test Root',
      organization: options.organization ?? 'Acme Corp',
      country: options.country ?? 'US',
      validityYears: options.validityYears ?? 10,
    });
    if (answer.status !== 200) throw new Error(`initializing the CA failed: ${answer.status} ${answer.text}`);
    ({ certificatePem: caPem, expiresAt: caExpiresAt } = answer.json<{
      certificatePem: string;
      expiresAt: string;
    }>());
  }
  return {
    tenantId,
    bearer,
    caPem,
    caDer: caPem ? Buffer.from(pemToDer(caPem)) : Buffer.alloc(0),
    caExpiresAt,
    get,
    post,
    tokenWithScope: (scope: string) => sut.tokens.withScope(tenantId, scope),
    async issue(body, path = '/v1/certificates') {
      const answer = await post(path, body);
      if (answer.status !== 200) throw new Error(`issuing failed: ${answer.status} ${answer.text}`);
      return answer.json<IssuedCertificate>();
    },
  };
}

/** The v1 issue body of a client certificate, with overrides (undefined leaves a field out). */
export const issueBody = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  clientId: 'payments-service',
  commonName: 'payments-client',
  organization: 'Acme Corp',
  organizationalUnit: 'Payments',
  country: 'US',
  validityDays: 365,
  ...overrides,
});

/** The exact member names of docs/api.md#issuance-answer, docs/api.md#renew-a-certificate, docs/api.md#certificate-fields-and-status (sorted). */
export const ISSUE_FIELDS = [
  'certificateId',
  'certificatePem',
  'chainPem',
  'expiresAt',
  'privateKeyPem',
  'serialNumber',
];
export const RENEW_FIELDS = [
  'certificatePem',
  'chainPem',
  'expiresAt',
  'newCertificateId',
  'privateKeyPem',
  'serialNumber',
];
export const SUMMARY_FIELDS = [
  'certificateId',
  'clientId',
  'commonName',
  'daysUntilExpiration',
  'expiresAt',
  'issuedAt',
  'serialNumber',
  'status',
];
export const DETAIL_FIELDS = [
  'certificateId',
  'certificatePem',
  'chainPem',
  'clientId',
  'commonName',
  'daysUntilExpiration',
  'expiresAt',
  'issuedAt',
  'renewalWindow',
  'serialNumber',
  'status',
  'tenantId',
];
export const EXPIRING_FIELDS = [
  'certificateId',
  'clientId',
  'commonName',
  'daysUntilExpiration',
  'expiresAt',
  'serialNumber',
  'status',
  'tenantId',
];

export interface Summary {
  certificateId: string;
  clientId: string;
  commonName: string;
  serialNumber: string;
  status: string;
  issuedAt: string;
  expiresAt: string;
  daysUntilExpiration: number;
}

export interface Detail extends Summary {
  tenantId: string;
  certificatePem: string;
  revokedAt?: string;
  revocationReason?: string;
}

export interface Expiring extends Omit<Summary, 'issuedAt'> {
  tenantId: string;
}

export const DAY_MS = 86_400_000;

/** Whether the private key PEM belongs to the certificate (the public key of the certificate is its own). */
export function keyMatchesCertificate(privateKeyPem: string, certificatePem: string): boolean {
  return new X509Certificate(certificatePem).checkPrivateKey(createPrivateKey(privateKeyPem));
}
