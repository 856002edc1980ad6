import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { SignJWT, generateKeyPair } from 'jose';
import { Detail, Summary, TestTenant, createTenant, issueBody } from './support/admin-api';
import { HttpAnswer, http } from './support/http';
import { expectInvalidToken, expectProblem, expectValidationProblem } from './support/problems';
import { SystemUnderTest, startSystemUnderTest, systemModes } from './support/system-under-test';
import { TestTokens, base64url } from './support/tokens';

/**
 * Hostile input on every administrative endpoint: the JWT attack matrix of
 * docs/api.md#tokens and bodies no client should send. Every answer must be a 4xx Problem Details (docs/api.md#errors),
 * never a 5xx, and the tenant's data must be exactly as it was before.
 */
jest.setTimeout(120_000);

const ISSUER = 'https://idp.abuse.test';
const AUDIENCE = 'ca-manager-abuse';

interface Endpoint {
  name: string;
  method: 'GET' | 'POST';
  path: (certificateId: string) => string;
  /** A body the endpoint accepts (POST only). */
  body?: Record<string, unknown>;
}

const ENDPOINTS: Endpoint[] = [
  {
    name: 'POST /v1/ca/initialize',
    method: 'POST',
    path: () => '/v1/ca/initialize',
    body: { commonName: 'Root', organization: 'Acme', country: 'US', validityYears: 5 },
  },
  { name: 'POST /v1/certificates', method: 'POST', path: () => '/v1/certificates', body: issueBody() },
  { name: 'GET /v1/certificates', method: 'GET', path: () => '/v1/certificates' },
  { name: 'GET /v1/certificates/expiring', method: 'GET', path: () => '/v1/certificates/expiring?days=30' },
  { name: 'GET /v1/certificates/{id}', method: 'GET', path: (id) => `/v1/certificates/${id}` },
  {
    name: 'POST /v1/certificates/{id}/renew',
    method: 'POST',
    path: (id) => `/v1/certificates/${id}/renew`,
    body: { validityDays: 30 },
  },
  {
    name: 'POST /v1/certificates/{id}/revoke',
    method: 'POST',
    path: (id) => `/v1/certificates/${id}/revoke`,
    body: { reason: 'abuse test', reasonCode: 'KeyCompromise' },
  },
  {
    name: 'POST /v2/certificates',
    method: 'POST',
    path: () => '/v2/certificates',
    body: issueBody({ usage: 'Server', subjectAlternativeNames: ['api.example.com'] }),
  },
  {
    name: 'POST /v2/certificates/{id}/renew',
    method: 'POST',
    path: (id) => `/v2/certificates/${id}/renew`,
    body: { validityDays: 30 },
  },
];
const POST_ENDPOINTS = ENDPOINTS.filter((e) => e.method === 'POST');

const nested = (depth: number, leaf: string) => '['.repeat(depth) + leaf + ']'.repeat(depth);

/** Raw bodies (and content types) a client should never send, with the answer each must get. */
interface BodyCase {
  name: string;
  raw: (valid: Record<string, unknown>) => string | Buffer;
  contentType?: string;
  status: 400 | 413;
  /** For 400: the fields `errors[]` must name (exactly). */
  fields?: (valid: Record<string, unknown>) => string[];
}

const withKey = (valid: Record<string, unknown>, key: string, value: string) =>
  `${JSON.stringify(valid).slice(0, -1)},${JSON.stringify(key)}:${value}}`;

const BODY_CASES: BodyCase[] = [
  {
    name: 'text that is not JSON',
    raw: () => 'commonName=Root&country=US',
    status: 400,
    fields: () => ['body'],
  },
  { name: 'truncated JSON', raw: (v) => JSON.stringify(v).slice(0, -3), status: 400, fields: () => ['body'] },
  {
    name: 'a JSON array of the valid body',
    raw: (v) => JSON.stringify([v]),
    status: 400,
    fields: () => ['body'],
  },
  { name: 'JSON null', raw: () => 'null', status: 400, fields: () => ['body'] },
  {
    name: 'JSON nested 10,000 levels deep',
    raw: () => nested(10_000, '1'),
    status: 400,
    fields: () => ['body'],
  },
  {
    name: 'a field nested 10,000 levels deep',
    raw: (v) => withKey(v, 'deep', nested(10_000, '{}')),
    status: 400,
    fields: () => ['deep'],
  },
  {
    name: 'a 5 MB body',
    raw: (v) => JSON.stringify({ ...v, padding: 'x'.repeat(5 * 1024 * 1024) }),
    status: 413,
  },
  {
    name: 'an unknown field',
    raw: (v) => JSON.stringify({ ...v, isCa: true }),
    status: 400,
    fields: () => ['isCa'],
  },
  {
    name: 'a "__proto__" key',
    raw: (v) => withKey(v, '__proto__', '{"isAdmin":true}'),
    status: 400,
    fields: () => ['__proto__'],
  },
  {
    name: 'a "constructor" key',
    raw: (v) => withKey(v, 'constructor', '{"prototype":{"isAdmin":true}}'),
    status: 400,
    fields: () => ['constructor'],
  },
  {
    name: 'a "prototype" key',
    raw: (v) => withKey(v, 'prototype', '{"isAdmin":true}'),
    status: 400,
    fields: () => ['prototype'],
  },
  {
    name: 'a valid body sent as text/plain',
    raw: (v) => JSON.stringify(v),
    contentType: 'text/plain',
    status: 400,
    fields: () => ['body'],
  },
  {
    name: 'a valid body sent as a form',
    raw: (v) => JSON.stringify(v),
    contentType: 'application/x-www-form-urlencoded',
    status: 400,
    fields: () => ['body'],
  },
  {
    name: 'invalid UTF-8 inside a string',
    raw: (v) => {
      const [first] = Object.keys(v);
      const json = JSON.stringify({ ...v, [first]: '@@' });
      const at = json.indexOf('@@');
      return Buffer.concat([
        Buffer.from(json.slice(0, at)),
        Buffer.of(0xc3, 0x28),
        Buffer.from(json.slice(at + 2)),
      ]);
    },
    status: 400,
    fields: () => ['body'],
  },
  {
    name: 'a charset other than UTF-8',
    raw: (v) => JSON.stringify(v),
    contentType: 'application/json; charset=iso-8859-1',
    status: 400,
    fields: () => ['body'],
  },
];

describe.each(systemModes('abuse suite'))('hostile input on the administrative API (%s)', (mode) => {
  let sut: SystemUnderTest;
  let tenant: TestTenant;
  let certificateId: string;
  let listedBefore: Summary[];
  let detailBefore: Detail;

  const send = (
    endpoint: Endpoint,
    bearer: string | null,
    raw?: string | Buffer,
    contentType = 'application/json',
  ): Promise<HttpAnswer> => {
    const headers: Record<string, string> = {};
    if (bearer !== null) headers.authorization = `Bearer ${bearer}`;
    const body = raw ?? (endpoint.body ? JSON.stringify(endpoint.body) : undefined);
    if (body !== undefined) headers['content-type'] = contentType;
    return http(`${sut.gatewayUrl}${endpoint.path(certificateId)}`, {
      method: endpoint.method,
      headers,
      body,
    });
  };

  /** Signs like the identity provider the system trusts (issuer and audience included). */
  const claims = (tenantId: unknown = tenant.tenantId) => ({
    tenantId,
    scope: 'ca:admin certificates:read certificates:write',
    iss: ISSUER,
    aud: AUDIENCE,
  });

  beforeAll(async () => {
    sut = await startSystemUnderTest(mode, {
      // The JWT matrix makes hundreds of failed authentications from one address in a minute.
      env: {
        JWT_ISSUER: ISSUER,
        JWT_AUDIENCE: AUDIENCE,
        RATE_LIMIT_PER_MINUTE: '100000',
        AUTH_FAILURE_LIMIT_PER_MINUTE: '100000',
      },
    });
    // Tokens of this suite carry the configured iss/aud unless a case says otherwise.
    const sign = sut.tokens.sign.bind(sut.tokens);
    (sut.tokens as { sign: TestTokens['sign'] }).sign = (tenantId, options = {}) =>
      sign(tenantId, { ...options, claims: { iss: ISSUER, aud: AUDIENCE, ...options.claims } });
    tenant = await createTenant(sut);
    ({ certificateId } = await tenant.issue(issueBody()));
    listedBefore = (await tenant.get('/v1/certificates')).json<{ certificates: Summary[] }>().certificates;
    detailBefore = (await tenant.get(`/v1/certificates/${certificateId}`)).json<Detail>();
  });

  afterAll(async () => {
    await sut?.stop();
  });

  describe('the JWT attack matrix (docs/api.md#tokens): 401 with WWW-Authenticate on every endpoint', () => {
    const now = () => Math.floor(Date.now() / 1000);
    const tokenCases: { name: string; code?: string; token: () => Promise<string> }[] = [
      {
        name: 'alg "none"',
        token: async () =>
          `${base64url({ alg: 'none', typ: 'JWT' })}.${base64url({ ...claims(), sub: 'mallory', exp: now() + 300 })}.`,
      },
      {
        name: 'HS256 keyed with the trusted ES256 public key (algorithm confusion)',
        token: () =>
          new SignJWT(claims())
            .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
            .setSubject('mallory')
            .setExpirationTime('5m')
            .sign(new TextEncoder().encode(sut.tokens.publicKeyPem)),
      },
      {
        name: 'HS256 keyed with the DER of the trusted public key',
        token: async () => {
          const der = Buffer.from(sut.tokens.publicKeyPem.replace(/-----[^-]+-----|\s/g, ''), 'base64');
          return new SignJWT(claims())
            .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
            .setSubject('mallory')
            .setExpirationTime('5m')
            .sign(der);
        },
      },
      {
        name: 'RS256 by a key the system does not trust (RS/ES confusion)',
        token: async () => {
          const { privateKey } = await generateKeyPair('RS256');
          return new SignJWT(claims())
            .setProtectedHeader({ alg: 'RS256' })
            .setSubject('mallory')
            .setExpirationTime('5m')
            .sign(privateKey);
        },
      },
      {
        name: 'ES256 by another key',
        token: () => sut.tokens.sign(tenant.tenantId, { key: sut.tokens.otherKey }),
      },
      {
        name: 'a payload swapped under a valid signature',
        token: async () => {
          const [header, , signature] = (await sut.tokens.sign(tenant.tenantId)).split('.');
          return `${header}.${base64url({ ...claims(randomUUID()), sub: 'mallory', exp: now() + 300 })}.${signature}`;
        },
      },
      {
        name: 'an expired token',
        code: 'expired_token',
        token: () => sut.tokens.sign(tenant.tenantId, { exp: now() - 120 }),
      },
      {
        name: 'a token not valid yet (nbf in an hour)',
        token: () => sut.tokens.sign(tenant.tenantId, { claims: { nbf: now() + 3600 } }),
      },
      {
        name: 'the wrong issuer',
        token: () => sut.tokens.sign(tenant.tenantId, { claims: { iss: 'https://evil.test' } }),
      },
      { name: 'no issuer', token: () => sut.tokens.sign(tenant.tenantId, { omit: ['iss'] }) },
      {
        name: 'the wrong audience',
        token: () => sut.tokens.sign(tenant.tenantId, { claims: { aud: 'another-api' } }),
      },
      { name: 'no audience', token: () => sut.tokens.sign(tenant.tenantId, { omit: ['aud'] }) },
      { name: 'no tenantId', token: () => sut.tokens.sign(tenant.tenantId, { omit: ['tenantId'] }) },
      { name: 'a non-UUID tenantId', token: () => sut.tokens.sign('tenant-1') },
      { name: 'a tenantId that is an array of UUIDs', token: () => sut.tokens.sign([tenant.tenantId]) },
      {
        name: 'a correctly signed token of 17 KB (over the cap of the verifier)',
        token: () => sut.tokens.sign(tenant.tenantId, { claims: { padding: 'x'.repeat(17 * 1024) } }),
      },
      { name: 'a 64 KB token', token: async () => `${'e'.repeat(64 * 1024)}.${base64url(claims())}.sig` },
      { name: 'three dots of nothing', token: async () => '..' },
    ];

    it.each(tokenCases)('refuses $name', async ({ token, code }) => {
      const bearer = await token();
      for (const endpoint of ENDPOINTS) {
        const answer = await send(endpoint, bearer);
        try {
          expectInvalidToken(answer, code);
        } catch (error) {
          throw new Error(
            `${endpoint.name}: ${answer.status} ${answer.text.slice(0, 300)}\n${String(error)}`,
          );
        }
      }
    });

    it('answers headers beyond any token (200 KB) with a 431 problem, not a bare status', async () => {
      const answer = await send(ENDPOINTS[2], 'x'.repeat(200 * 1024));
      expectProblem(answer, 431, 'REQUEST_HEADERS_TOO_LARGE', undefined, { requestIdHeader: false });
    });

    it('accepts a token of the configured issuer and audience (the matrix refuses for the stated reason)', async () => {
      expect((await send(ENDPOINTS[2], tenant.bearer)).status).toBe(200);
    });
  });

  describe('hostile bodies on every POST endpoint: 4xx Problem Details, never 5xx', () => {
    it.each(BODY_CASES)('answers $name with $status', async ({ raw, contentType, status, fields }) => {
      for (const endpoint of POST_ENDPOINTS) {
        const answer = await send(endpoint, tenant.bearer, raw(endpoint.body!), contentType);
        try {
          if (status === 413)
            expectProblem(answer, 413, 'PAYLOAD_TOO_LARGE', undefined, { requestIdHeader: false });
          else expectValidationProblem(answer, fields!(endpoint.body!));
        } catch (error) {
          throw new Error(
            `${endpoint.name}: ${answer.status} ${answer.text.slice(0, 300)}\n${String(error)}`,
          );
        }
      }
    });

    it('left no polluted prototype behind', () => {
      expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
    });
  });

  describe('hostile paths and queries', () => {
    const expiring = (query: string) => `/v1/certificates/expiring?${query}`;
    it.each([
      { label: 'days=abc', path: expiring('days=abc'), field: 'days' },
      { label: 'days=1e400', path: expiring('days=1e400'), field: 'days' },
      { label: 'days=-1', path: expiring('days=-1'), field: 'days' },
      { label: 'days=3651', path: expiring('days=3651'), field: 'days' },
      { label: 'days=1&days=2', path: expiring('days=1&days=2'), field: 'days' },
      { label: 'days=0x10', path: expiring('days=0x10'), field: 'days' },
      { label: 'days=" 30"', path: expiring('days=%2030'), field: 'days' },
      {
        label: 'a certificate id that is not a UUID',
        path: '/v1/certificates/not-a-uuid',
        field: 'certificateId',
      },
      { label: 'a NUL certificate id', path: '/v1/certificates/%00', field: 'certificateId' },
      {
        label: 'a certificate id of 4,000 characters',
        path: `/v1/certificates/${'a'.repeat(4000)}`,
        field: 'certificateId',
      },
    ])('answers $label with 400 on $field', async ({ path, field }) => {
      expectValidationProblem(await tenant.get(path), [field]);
    });
  });

  it('changed nothing: the certificate listed before is listed and read back the same', async () => {
    const listed = (await tenant.get('/v1/certificates')).json<{ certificates: Summary[] }>().certificates;
    expect(listed).toEqual(listedBefore.map((s) => ({ ...s, daysUntilExpiration: expect.any(Number) })));
    const detail = (await tenant.get(`/v1/certificates/${certificateId}`)).json<Detail>();
    expect(detail).toEqual({ ...detailBefore, daysUntilExpiration: expect.any(Number) });
    expect(detail.status).toBe('Active');
  });
});
