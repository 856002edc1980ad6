import 'reflect-metadata';
import { X509Certificate, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { pemToDer } from '@ca/pki';
import { describeIfOpenssl, runOpenssl } from '@ca/pki/testing';
import { startOcspResponder } from '@ca/ocsp-responder';
import { HttpAnswer, eventually, http, sleep } from './support/http';
import { Problem, expectFieldErrors, expectInvalidToken, expectProblem } from './support/problems';
import { SystemUnderTest, startSystemUnderTest, systemModes } from './support/system-under-test';
import { TokenOptions, base64url } from './support/tokens';

/**
 * The whole system as a user drives it: HTTP against the administrative API (GATEWAY_PORT) and
 * the public distribution surface (PKI_PORT), nothing else. Runs on the embedded defaults
 * (PGlite under DATA_DIR, in-process transport) and, when DATABASE_URL and NATS_URL are set, on a
 * fresh database of that Postgres server and that NATS (with a JetStream stream and subjects of
 * its own; tenants are random, so runs do not see each other's data).
 */
jest.setTimeout(60_000);

const modes = systemModes('system suite');

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const PEM_CERTIFICATE =
  /^-----BEGIN CERTIFICATE-----\n(?:[A-Za-z0-9+/=]{1,64}\n)+-----END CERTIFICATE-----\n?$/;

interface InitializeBody {
  commonName: string;
  organization: string;
  country: string;
  validityYears: number;
}

const validBody = (
  overrides: Partial<Record<keyof InitializeBody, unknown>> = {},
): Record<string, unknown> => ({
  commonName: 'Acme Partner Root',
  organization: 'Acme Corp',
  country: 'US',
  validityYears: 10,
  ...overrides,
});

function addUtcYears(date: Date, years: number): Date {
  const result = new Date(date);
  result.setUTCFullYear(result.getUTCFullYear() + years);
  return result;
}

/**
 * A CA's expiresAt when asked at `requestedAt`: notBefore is set back a minute and the validity ends
 * one second short of the years, RFC 5280 4.1.2.5 counting both ends in (docs/certificate-profile.md).
 */
const expectedCaExpiry = (requestedAt: Date, years: number) =>
  addUtcYears(new Date(requestedAt.getTime() - 60_000), years).getTime() - 1000;

describe.each(modes)('CA Manager over HTTP (%s)', (mode) => {
  let sut: SystemUnderTest;
  let gatewayUrl: string;
  let pkiUrl: string;

  function token(tenantId: unknown, options: TokenOptions = {}): Promise<string> {
    return sut.tokens.sign(tenantId, options);
  }

  function initialize(
    body: unknown,
    bearer: string | undefined,
    options: { raw?: string; headers?: Record<string, string> } = {},
  ): Promise<HttpAnswer> {
    const headers: Record<string, string> = { 'content-type': 'application/json', ...options.headers };
    if (bearer !== undefined) headers.authorization = `Bearer ${bearer}`;
    return http(`${gatewayUrl}/v1/ca/initialize`, {
      method: 'POST',
      headers,
      body: options.raw ?? JSON.stringify(body),
    });
  }

  async function initializeTenant(body: unknown = validBody()) {
    const tenantId = randomUUID();
    const answer = await initialize(body, await token(tenantId));
    return { tenantId, answer };
  }

  const caPemUrl = (tenantId: string) => `${pkiUrl}/v1/tenants/${tenantId}/ca.pem`;
  const caCrtUrl = (tenantId: string) => `${pkiUrl}/v1/tenants/${tenantId}/ca.crt`;

  /** The CA certificate as the distribution surface serves it, once it has arrived (≤ 5 s). */
  function servedPem(tenantId: string): Promise<HttpAnswer> {
    return eventually(
      async () => {
        const answer = await http(caPemUrl(tenantId));
        return answer.status === 200 ? answer : undefined;
      },
      5_000,
      `ca.pem of tenant ${tenantId} served`,
    );
  }

  beforeAll(async () => {
    sut = await startSystemUnderTest(mode, { tokenScope: 'ca:admin' });
    ({ gatewayUrl, pkiUrl } = sut);
  });

  afterAll(async () => {
    await sut?.stop();
  });

  describe('initializing a CA', () => {
    const subject = {
      commonName: 'Acme Partner Root',
      organization: 'Acme Corp',
      country: 'US',
      validityYears: 10,
    };
    let tenantId: string;
    let answer: HttpAnswer;
    let requestedAt: Date;
    let result: { caId: string; certificatePem: string; expiresAt: string };

    beforeAll(async () => {
      requestedAt = new Date();
      ({ tenantId, answer } = await initializeTenant(subject));
      result = answer.json();
    });

    it('answers 200 with caId, certificatePem and expiresAt ≈ now + validityYears', () => {
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toMatch(/^application\/json(;|$)/);
      expect(Object.keys(result).sort()).toEqual(['caId', 'certificatePem', 'expiresAt']);
      expect(result.caId).toMatch(UUID_V4);
      expect(result.certificatePem).toMatch(PEM_CERTIFICATE);
      expect(result.expiresAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
      const expected = expectedCaExpiry(requestedAt, subject.validityYears);
      expect(Math.abs(Date.parse(result.expiresAt) - expected)).toBeLessThan(5_000);
    });

    it('returns a self-signed CA certificate for the requested subject, valid until expiresAt', () => {
      const certificate = new X509Certificate(result.certificatePem);
      expect(certificate.ca).toBe(true);
      expect(certificate.subject.split('\n').sort()).toEqual(['C=US', 'CN=Acme Partner Root', 'O=Acme Corp']);
      expect(certificate.issuer).toBe(certificate.subject);
      expect(certificate.verify(certificate.publicKey)).toBe(true);
      expect(certificate.publicKey.asymmetricKeyType).toBe('ec');
      expect(certificate.publicKey.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
      expect(Date.parse(certificate.validTo)).toBe(Date.parse(result.expiresAt));
      const notBefore = Date.parse(certificate.validFrom);
      expect(Math.abs(notBefore - (requestedAt.getTime() - 60_000))).toBeLessThan(5_000);
      expect(Date.parse(certificate.validTo)).toBe(
        addUtcYears(new Date(notBefore), subject.validityYears).getTime() - 1000,
      );
    });

    describeIfOpenssl('as openssl reads it', () => {
      it('shows the subject, a critical CA:TRUE, critical keyCertSign/cRLSign, an SKI, ECDSA P-256 with SHA-256', () => {
        const text = runOpenssl(['x509', '-noout', '-text'], result.certificatePem);
        expect(text).toMatch(/Version: 3 \(0x2\)/);
        expect(text).toMatch(/Subject: C ?= ?US, O ?= ?Acme Corp, CN ?= ?Acme Partner Root\n/);
        expect(text).toMatch(/Issuer: C ?= ?US, O ?= ?Acme Corp, CN ?= ?Acme Partner Root\n/);
        expect(text).toMatch(/X509v3 Basic Constraints: critical\n\s+CA:TRUE\n/);
        expect(text).toMatch(/X509v3 Key Usage: critical\n\s+Certificate Sign, CRL Sign\n/);
        expect(text).toMatch(/X509v3 Subject Key Identifier: ?\n\s+([0-9A-F]{2}:)+[0-9A-F]{2}\n/);
        expect(text).toMatch(/Signature Algorithm: ecdsa-with-SHA256/);
        expect(text).toMatch(/Public Key Algorithm: id-ecPublicKey/);
        expect(text).toMatch(/ASN1 OID: prime256v1/);
        expect(text).toMatch(/NIST CURVE: P-256/);
      });

      it('verifies as a trust root, and its notAfter is expiresAt', () => {
        const dir = mkdtempSync(join(tmpdir(), 'ca-openssl-'));
        try {
          const file = join(dir, 'ca.pem');
          writeFileSync(file, result.certificatePem);
          expect(runOpenssl(['verify', '-x509_strict', '-CAfile', file, file]).trim()).toBe(`${file}: OK`);
          const endDate = runOpenssl(['x509', '-noout', '-enddate', '-in', file])
            .trim()
            .replace(/^notAfter=/, '');
          expect(Date.parse(endDate)).toBe(Date.parse(result.expiresAt));
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      });
    });

    it('publishes the same certificate at ca.pem (application/x-pem-file) within 5 s, with ETag and Last-Modified', async () => {
      const served = await servedPem(tenantId);
      expect(served.headers.get('content-type')).toMatch(/^application\/x-pem-file(;|$)/);
      expect(Buffer.from(pemToDer(served.text))).toEqual(Buffer.from(pemToDer(result.certificatePem)));
      expect(served.text.trim()).toBe(result.certificatePem.trim());
      expect(served.headers.get('etag')).toMatch(/^(W\/)?"[^"]+"$/);
      const lastModified = served.headers.get('last-modified');
      expect(lastModified).toMatch(/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/);
      // Published after the request was made (to the second), not in the future.
      expect(Date.parse(lastModified!)).toBeGreaterThanOrEqual(
        Math.floor(requestedAt.getTime() / 1000) * 1000,
      );
      expect(Date.parse(lastModified!)).toBeLessThanOrEqual(Date.now());
      expect(served.headers.get('cache-control')).toMatch(/\bpublic\b/);
    });

    it('publishes the DER of the same certificate at ca.crt (application/pkix-cert)', async () => {
      await servedPem(tenantId);
      const der = await http(caCrtUrl(tenantId));
      expect(der.status).toBe(200);
      expect(der.headers.get('content-type')).toMatch(/^application\/pkix-cert(;|$)/);
      expect(der.body).toEqual(Buffer.from(pemToDer(result.certificatePem)));
      expect(der.headers.get('etag')).toMatch(/^(W\/)?"[^"]+"$/);
      expect(der.headers.get('last-modified')).toBeTruthy();
      expect(new X509Certificate(der.body).fingerprint256).toBe(
        new X509Certificate(result.certificatePem).fingerprint256,
      );
    });

    it('answers a conditional GET with the current ETag or Last-Modified with 304 and no body', async () => {
      for (const url of [caPemUrl(tenantId), caCrtUrl(tenantId)]) {
        const first = await eventually(async () => {
          const a = await http(url);
          return a.status === 200 ? a : undefined;
        });
        const etag = first.headers.get('etag')!;
        const byEtag = await http(url, { headers: { 'if-none-match': etag } });
        expect(byEtag.status).toBe(304);
        expect(byEtag.body.length).toBe(0);
        expect(byEtag.headers.get('etag')).toBe(etag);
        const byDate = await http(url, {
          headers: { 'if-modified-since': first.headers.get('last-modified')! },
        });
        expect(byDate.status).toBe(304);
        // A stale validator gets the full representation again.
        const stale = await http(url, { headers: { 'if-none-match': '"something-else"' } });
        expect(stale.status).toBe(200);
        expect(stale.body).toEqual(first.body);
      }
    });

    it('answers HEAD with 200, the same headers and no body', async () => {
      for (const [url, type] of [
        [caPemUrl(tenantId), /^application\/x-pem-file(;|$)/],
        [caCrtUrl(tenantId), /^application\/pkix-cert(;|$)/],
      ] as const) {
        const get = await eventually(async () => {
          const a = await http(url);
          return a.status === 200 ? a : undefined;
        });
        const head = await http(url, { method: 'HEAD' });
        expect(head.status).toBe(200);
        expect(head.body.length).toBe(0);
        expect(head.headers.get('content-type')).toMatch(type);
        expect(head.headers.get('etag')).toBe(get.headers.get('etag'));
        expect(head.headers.get('last-modified')).toBe(get.headers.get('last-modified'));
      }
    });

    it('serves nothing for a tenant without a CA or a tenant id that is not a UUID (404)', async () => {
      for (const tenant of [randomUUID(), 'not-a-uuid', '..%2F..%2Fetc%2Fpasswd']) {
        for (const url of [caPemUrl(tenant), caCrtUrl(tenant)]) {
          const answer = await http(url);
          expect(answer.status).toBe(404);
          const head = await http(url, { method: 'HEAD' });
          expect(head.status).toBe(404);
        }
      }
    });
  });

  describe('a tenant has at most one CA', () => {
    it('refuses a second initialization with 409 CONFLICT and keeps the first CA', async () => {
      const tenantId = randomUUID();
      const bearer = await token(tenantId);
      const first = await initialize(validBody({ commonName: 'First Root' }), bearer);
      expect(first.status).toBe(200);
      const before = await servedPem(tenantId);

      const second = await initialize(validBody({ commonName: 'Second Root', validityYears: 2 }), bearer);
      expectProblem(second, 409, 'CONFLICT', 'ca-manager/conflict');
      // The same body again is no different.
      expectProblem(await initialize(validBody({ commonName: 'First Root' }), bearer), 409, 'CONFLICT');

      await sleep(1_500); // time for a (wrong) second event to arrive
      const after = await http(caPemUrl(tenantId));
      expect(after.status).toBe(200);
      expect(after.text).toBe(before.text);
      expect(after.headers.get('etag')).toBe(before.headers.get('etag'));
      expect(new X509Certificate(after.text).subject).toContain('CN=First Root');
      expect(pemToDer(after.text)).toEqual(pemToDer(first.json<{ certificatePem: string }>().certificatePem));
    });

    it('lets exactly one of concurrent initializations of a new tenant succeed; the others get 409', async () => {
      const tenantId = randomUUID();
      const bearer = await token(tenantId);
      const answers = await Promise.all(
        Array.from({ length: 5 }, (_, i) =>
          initialize(validBody({ commonName: `Concurrent Root ${i}` }), bearer),
        ),
      );
      const statuses = answers.map((a) => a.status).sort();
      expect(statuses).toEqual([200, 409, 409, 409, 409]);
      for (const conflict of answers.filter((a) => a.status === 409))
        expectProblem(conflict, 409, 'CONFLICT');
      const winner = answers.find((a) => a.status === 200)!.json<{ certificatePem: string }>();
      const served = await servedPem(tenantId);
      expect(pemToDer(served.text)).toEqual(pemToDer(winner.certificatePem));
    });

    it('keeps tenants apart: another tenant still initializes its own CA', async () => {
      const a = await initializeTenant(validBody({ commonName: 'Tenant A Root' }));
      const b = await initializeTenant(validBody({ commonName: 'Tenant B Root' }));
      expect(a.answer.status).toBe(200);
      expect(b.answer.status).toBe(200);
      expect(a.answer.json<{ caId: string }>().caId).not.toBe(b.answer.json<{ caId: string }>().caId);
      expect(new X509Certificate((await servedPem(a.tenantId)).text).subject).toContain('CN=Tenant A Root');
      expect(new X509Certificate((await servedPem(b.tenantId)).text).subject).toContain('CN=Tenant B Root');
    });
  });

  describe('request validation (400 VALIDATION_FAILED)', () => {
    const long = (n: number) => 'x'.repeat(n);
    /** `unreadable`: the body never reached the DTO (see the X-Request-Id test of unreadable bodies below). */
    const cases: { name: string; body?: unknown; raw?: string; fields: string[]; unreadable?: boolean }[] = [
      {
        name: 'an empty object',
        body: {},
        fields: ['commonName', 'organization', 'country', 'validityYears'],
      },
      { name: 'a missing commonName', body: validBody({ commonName: undefined }), fields: ['commonName'] },
      {
        name: 'a missing organization',
        body: validBody({ organization: undefined }),
        fields: ['organization'],
      },
      { name: 'a missing country', body: validBody({ country: undefined }), fields: ['country'] },
      {
        name: 'a missing validityYears',
        body: validBody({ validityYears: undefined }),
        fields: ['validityYears'],
      },
      { name: 'an empty commonName', body: validBody({ commonName: '' }), fields: ['commonName'] },
      {
        name: 'a commonName of 65 characters',
        body: validBody({ commonName: long(65) }),
        fields: ['commonName'],
      },
      {
        name: 'an organization of 65 characters',
        body: validBody({ organization: long(65) }),
        fields: ['organization'],
      },
      { name: 'a null commonName', body: validBody({ commonName: null }), fields: ['commonName'] },
      { name: 'a numeric commonName', body: validBody({ commonName: 42 }), fields: ['commonName'] },
      { name: 'country "us"', body: validBody({ country: 'us' }), fields: ['country'] },
      { name: 'country "USA"', body: validBody({ country: 'USA' }), fields: ['country'] },
      { name: 'country "U1"', body: validBody({ country: 'U1' }), fields: ['country'] },
      { name: 'validityYears 0', body: validBody({ validityYears: 0 }), fields: ['validityYears'] },
      { name: 'validityYears 31', body: validBody({ validityYears: 31 }), fields: ['validityYears'] },
      { name: 'validityYears -1', body: validBody({ validityYears: -1 }), fields: ['validityYears'] },
      {
        name: 'validityYears "5" (a string)',
        body: validBody({ validityYears: '5' }),
        fields: ['validityYears'],
      },
      { name: 'validityYears 1.5', body: validBody({ validityYears: 1.5 }), fields: ['validityYears'] },
      { name: 'validityYears true', body: validBody({ validityYears: true }), fields: ['validityYears'] },
      {
        name: 'an unknown extra field',
        body: { ...validBody(), keyAlgorithm: 'RSA' },
        fields: ['keyAlgorithm'],
      },
      {
        name: 'several bad fields at once',
        body: { commonName: '', organization: long(65), country: 'usa', validityYears: 0 },
        fields: ['commonName', 'organization', 'country', 'validityYears'],
      },
      { name: 'a JSON array body', body: [validBody()], fields: ['body'] },
      { name: 'a JSON string body', body: 'hello', fields: ['body'] },
      { name: 'a JSON null body', raw: 'null', fields: ['body'] },
      { name: 'malformed JSON', raw: '{"commonName": "Acme",', fields: ['body'], unreadable: true },
      { name: 'an empty body', raw: '', fields: [] },
    ];

    it.each(cases)(
      'refuses $name and names each failing field',
      async ({ body, raw, fields, unreadable }) => {
        const tenantId = randomUUID();
        const answer = await initialize(body, await token(tenantId), { raw });
        const problem = expectProblem(answer, 400, 'VALIDATION_FAILED', undefined, {
          requestIdHeader: !unreadable,
        });
        expectFieldErrors(problem, fields);
      },
    );

    it('refuses a body larger than the API accepts with a 413 problem', async () => {
      const huge = validBody({ commonName: 'x'.repeat(200_000) });
      const answer = await initialize(huge, await token(randomUUID()));
      expectProblem(answer, 413, 'PAYLOAD_TOO_LARGE', undefined, { requestIdHeader: false });
    });

    it('echoes X-Request-Id also when the body cannot be parsed', async () => {
      const answer = await initialize(undefined, await token(randomUUID()), {
        raw: '{"commonName": ',
        headers: { 'x-request-id': 'abc-123' },
      });
      const problem = expectProblem(answer, 400, 'VALIDATION_FAILED');
      expect(answer.headers.get('x-request-id')).toBe('abc-123');
      expect(problem.requestId).toBe('abc-123');
    });

    it('changes nothing on a refused request: the tenant can initialize afterwards', async () => {
      const tenantId = randomUUID();
      const bearer = await token(tenantId);
      expect((await initialize(validBody({ validityYears: 31 }), bearer)).status).toBe(400);
      expect((await initialize(validBody({ country: 'usa' }), bearer)).status).toBe(400);
      expect((await http(caPemUrl(tenantId))).status).toBe(404);
      expect((await initialize(validBody(), bearer)).status).toBe(200);
    });

    it.each([
      ['a commonName of exactly 64 characters', validBody({ commonName: 'C'.repeat(64) }), 10],
      ['an organization of exactly 64 characters', validBody({ organization: 'O'.repeat(64) }), 10],
      ['one-character names', validBody({ commonName: 'R', organization: 'O' }), 10],
      ['validityYears 1', validBody({ validityYears: 1 }), 1],
      ['validityYears 30', validBody({ validityYears: 30 }), 30],
    ])('accepts %s', async (_name, body, years) => {
      const requestedAt = new Date();
      const { tenantId, answer } = await initializeTenant(body);
      expect(answer.status).toBe(200);
      const result = answer.json<{ certificatePem: string; expiresAt: string }>();
      expect(Math.abs(Date.parse(result.expiresAt) - expectedCaExpiry(requestedAt, years))).toBeLessThan(
        5_000,
      );
      const certificate = new X509Certificate(result.certificatePem);
      expect(certificate.subject).toContain(`CN=${body.commonName}`);
      expect(certificate.subject).toContain(`O=${body.organization}`);
      expect(Date.parse(certificate.validTo)).toBe(Date.parse(result.expiresAt));
      expect(pemToDer((await servedPem(tenantId)).text)).toEqual(pemToDer(result.certificatePem));
    });

    it('accepts non-ASCII names and keeps them intact', async () => {
      const body = validBody({ commonName: 'Zürich Wurzel-CA ✓', organization: 'Société Générale' });
      const { answer } = await initializeTenant(body);
      expect(answer.status).toBe(200);
      const certificate = new X509Certificate(answer.json<{ certificatePem: string }>().certificatePem);
      expect(certificate.subject).toContain('CN=Zürich Wurzel-CA ✓');
      expect(certificate.subject).toContain('O=Société Générale');
    });
  });

  describe('authentication and scopes (docs/api.md#tokens)', () => {
    it('refuses a request without a token', async () => {
      expectInvalidToken(await initialize(validBody(), undefined));
    });

    it('refuses a malformed token', async () => {
      expectInvalidToken(await initialize(validBody(), 'not.a.jwt'));
      expectInvalidToken(await initialize(validBody(), 'garbage'));
      expectInvalidToken(await initialize(validBody(), ''));
    });

    it('refuses a non-Bearer Authorization header', async () => {
      const answer = await http(`${gatewayUrl}/v1/ca/initialize`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Basic ${Buffer.from('a:b').toString('base64')}`,
        },
        body: JSON.stringify(validBody()),
      });
      expectInvalidToken(answer);
    });

    it('refuses an alg "none" token', async () => {
      const now = Math.floor(Date.now() / 1000);
      const unsigned = `${base64url({ alg: 'none', typ: 'JWT' })}.${base64url({
        tenantId: randomUUID(),
        sub: 'mallory',
        scope: 'ca:admin',
        iat: now,
        exp: now + 300,
      })}.`;
      expectInvalidToken(await initialize(validBody(), unsigned));
    });

    it('refuses a token signed by another key', async () => {
      expectInvalidToken(
        await initialize(validBody(), await token(randomUUID(), { key: sut.tokens.otherKey })),
      );
    });

    it('refuses an HS256 token whose secret is the public key PEM (algorithm confusion)', async () => {
      const forged = await new SignJWT({ tenantId: randomUUID(), scope: 'ca:admin' })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setSubject('mallory')
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(new TextEncoder().encode(sut.tokens.publicKeyPem));
      expectInvalidToken(await initialize(validBody(), forged));
    });

    it('refuses a token whose signature was tampered with', async () => {
      const good = await token(randomUUID());
      const [header, , signature] = good.split('.');
      const payload = base64url({
        tenantId: randomUUID(),
        sub: 'mallory',
        scope: 'ca:admin',
        exp: 9_999_999_999,
      });
      expectInvalidToken(await initialize(validBody(), `${header}.${payload}.${signature}`));
    });

    it('refuses a token without tenantId or with a non-UUID tenantId', async () => {
      expectInvalidToken(await initialize(validBody(), await token(randomUUID(), { omit: ['tenantId'] })));
      expectInvalidToken(await initialize(validBody(), await token('tenant-42')));
      expectInvalidToken(await initialize(validBody(), await token(12345)));
    });

    it('refuses a token without exp', async () => {
      expectInvalidToken(await initialize(validBody(), await token(randomUUID(), { exp: null })));
    });

    it('refuses a token without sub', async () => {
      expectInvalidToken(await initialize(validBody(), await token(randomUUID(), { subject: null })));
    });

    it('refuses an expired token with code expired_token', async () => {
      const expired = await token(randomUUID(), { exp: Math.floor(Date.now() / 1000) - 60 });
      expectInvalidToken(await initialize(validBody(), expired), 'expired_token');
    });

    it('checks the token before validating the body: an invalid body with no token is 401, not 400', async () => {
      expectInvalidToken(await initialize({}, undefined));
      expectInvalidToken(await initialize(validBody({ country: 'usa' }), await token('tenant-42')));
    });

    it('refuses a token without the ca:admin scope with 403 and creates nothing', async () => {
      const tenantId = randomUUID();
      for (const claims of [
        { scope: 'certificates:read certificates:write' },
        { scope: '' },
        { scope: 'ca:admin2' },
        { scope: undefined, scp: ['certificates:write'] },
      ]) {
        const answer = await initialize(validBody(), await token(tenantId, { claims }));
        expectProblem(answer, 403, 'FORBIDDEN', 'common/forbidden');
      }
      expectProblem(
        await initialize(validBody(), await token(tenantId, { omit: ['scope'] })),
        403,
        'FORBIDDEN',
      );
      expect((await initialize(validBody(), await token(tenantId))).status).toBe(200);
    });

    it('accepts ca:admin among other scopes, and the scp array form', async () => {
      const spaced = await initialize(
        validBody(),
        await token(randomUUID(), { claims: { scope: 'certificates:read ca:admin' } }),
      );
      expect(spaced.status).toBe(200);
      const array = await initialize(
        validBody(),
        await token(randomUUID(), { claims: { scope: undefined, scp: ['ca:admin'] } }),
      );
      expect(array.status).toBe(200);
    });

    it('acts on the tenant of the token (an upper-case tenantId is the same tenant)', async () => {
      const tenantId = randomUUID();
      expect((await initialize(validBody(), await token(tenantId.toUpperCase()))).status).toBe(200);
      expectProblem(await initialize(validBody(), await token(tenantId)), 409, 'CONFLICT');
      await servedPem(tenantId);
    });
  });

  describe('request ids', () => {
    it('echoes X-Request-Id in the response header and in the problem', async () => {
      const answer = await initialize({}, await token(randomUUID()), {
        headers: { 'x-request-id': 'abc-123' },
      });
      const problem = expectProblem(answer, 400, 'VALIDATION_FAILED');
      expect(answer.headers.get('x-request-id')).toBe('abc-123');
      expect(problem.requestId).toBe('abc-123');
      const unauthorized = await initialize({}, undefined, { headers: { 'x-request-id': 'abc-123' } });
      expect(unauthorized.json<Problem>().requestId).toBe('abc-123');
      expect(unauthorized.headers.get('x-request-id')).toBe('abc-123');
    });

    it('echoes X-Request-Id on success and makes one up when none is sent', async () => {
      const ok = await initialize(validBody(), await token(randomUUID()), {
        headers: { 'x-request-id': 'abc-123' },
      });
      expect(ok.status).toBe(200);
      expect(ok.headers.get('x-request-id')).toBe('abc-123');
      const answer = await initialize({}, await token(randomUUID()));
      const problem = expectProblem(answer, 400, 'VALIDATION_FAILED');
      expect(problem.requestId.length).toBeGreaterThan(0);
      const again = await initialize({}, await token(randomUUID()));
      expect(again.json<Problem>().requestId).not.toBe(problem.requestId);
    });
  });

  describe('routes, health and OpenAPI', () => {
    it('answers an unknown route with 404 in application/json, not problem+json', async () => {
      const requests: RequestInit[] = [
        { method: 'GET' },
        { method: 'GET', headers: { authorization: `Bearer ${await token(randomUUID())}` } },
        { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' },
      ];
      for (const init of requests) {
        const answer = await http(`${gatewayUrl}/v1/no-such-route`, init);
        expect(answer.status).toBe(404);
        expect(answer.headers.get('content-type')).toMatch(/^application\/json(;|$)/);
        expect(() => answer.json()).not.toThrow();
      }
      const wrongMethod = await http(`${gatewayUrl}/v1/ca/initialize`);
      expect(wrongMethod.status).toBe(404);
      expect(wrongMethod.headers.get('content-type')).toMatch(/^application\/json(;|$)/);
    });

    it('answers /health/live and /health/ready with 200 on both ports, without a token', async () => {
      for (const base of [gatewayUrl, pkiUrl]) {
        for (const path of ['/health/live', '/health/ready']) {
          const answer = await http(`${base}${path}`);
          expect(answer.status).toBe(200);
          expect(answer.json()).toEqual(expect.objectContaining({ status: 'ok' }));
        }
      }
    });

    it('publishes an OpenAPI 3.1.0 description with /v1/ca/initialize, without a token', async () => {
      const answer = await http(`${gatewayUrl}/openapi.json`);
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toMatch(/^application\/json(;|$)/);
      const document = answer.json<{ openapi: string; paths: Record<string, Record<string, unknown>> }>();
      expect(document.openapi).toBe('3.1.0');
      expect(document.paths['/v1/ca/initialize']).toHaveProperty('post');
    });
  });

  describe('the distribution surface across restarts', () => {
    function takeOutResponder() {
      const index = sut.system.services.findIndex((s) => s.name === 'ocsp-responder');
      expect(index).toBeGreaterThanOrEqual(0);
      const [responder] = sut.system.services.splice(index, 1);
      return responder;
    }

    if (mode === 'postgres+nats') {
      it('delivers a CA initialized while the responder was down once a new responder starts', async () => {
        await takeOutResponder().close();
        await expect(fetch(caPemUrl(randomUUID()))).rejects.toThrow();

        const { tenantId, answer } = await initializeTenant(validBody({ commonName: 'While Down Root' }));
        expect(answer.status).toBe(200);

        // A restarted responder: its own connection, the same database and durable consumer.
        const messaging = await sut.openMessaging('ocsp-responder');
        const responder = await startOcspResponder({
          config: sut.config,
          databaseUrl: sut.config.databaseUrl!,
          messaging,
          logger: sut.serviceLogger('ocsp-responder'),
        });
        sut.system.services.push(responder);
        const served = await servedPem(tenantId);
        expect(pemToDer(served.text)).toEqual(
          pemToDer(answer.json<{ certificatePem: string }>().certificatePem),
        );
      });
    }

    it('loses nothing over a restart of the whole system: a CA initialized while the responder was down is served afterwards', async () => {
      const before = await initializeTenant(validBody({ commonName: 'Before Restart Root' }));
      expect(before.answer.status).toBe(200);
      const beforePem = await servedPem(before.tenantId);

      await takeOutResponder().close();
      const during = await initializeTenant(validBody({ commonName: 'During Outage Root' }));
      expect(during.answer.status).toBe(200);

      await sut.restart();

      const served = await servedPem(during.tenantId);
      expect(pemToDer(served.text)).toEqual(
        pemToDer(during.answer.json<{ certificatePem: string }>().certificatePem),
      );
      const again = await http(caPemUrl(before.tenantId));
      expect(again.status).toBe(200);
      expect(again.text).toBe(beforePem.text);
      expect(again.headers.get('etag')).toBe(beforePem.headers.get('etag'));
      expect(again.headers.get('last-modified')).toBe(beforePem.headers.get('last-modified'));
      // The issuance side remembers too: still one CA per tenant.
      expectProblem(await initialize(validBody(), await token(before.tenantId)), 409, 'CONFLICT');
    });
  });
});
