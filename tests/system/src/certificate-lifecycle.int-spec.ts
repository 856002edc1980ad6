import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import 'reflect-metadata';
import { X509Certificate, createPrivateKey, randomUUID } from 'node:crypto';
import { connect } from 'nats';
import { Client } from 'pg';
import { pemToDer } from '@ca/pki';
import { describeIfOpenssl, runOpenssl, spawnOpenssl } from '@ca/pki/testing';
import {
  DAY_MS,
  DETAIL_FIELDS,
  Detail,
  EXPIRING_FIELDS,
  Expiring,
  ISSUE_FIELDS,
  IssuedCertificate,
  RENEW_FIELDS,
  RenewedCertificate,
  SUMMARY_FIELDS,
  Summary,
  TestTenant,
  createTenant,
  issueBody,
  keyMatchesCertificate,
} from './support/admin-api';
import { HttpAnswer, eventually, http } from './support/http';
import { captureLogs } from './support/logs';
import {
  TempFiles,
  certificateInfo,
  eventuallyCrl,
  eventuallyRevokedInOcsp,
  ocspRequestDer,
  ocspStatus,
  opensslAsync,
} from './support/pki';
import { expectInvalidToken, expectProblem, expectValidationProblem } from './support/problems';
import { SystemUnderTest, startSystemUnderTest, systemModes } from './support/system-under-test';

/**
 * The certificate lifecycle of docs/api.md (v1) as a user drives it: issue, list, get,
 * expiring, renew and revoke over HTTP with real tokens, and what relying parties then see on the
 * distribution surface (CRL, OCSP, caIssuers) and with openssl. Runs embedded and, when
 * DATABASE_URL and NATS_URL are set, on Postgres + NATS; one system per mode, own tenants, own
 * database and stream.
 */
jest.setTimeout(60_000);

const modes = systemModes('certificate lifecycle suite');

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const SERIAL = /^[0-9A-F]{16,}$/;
const PEM_CERTIFICATE =
  /^-----BEGIN CERTIFICATE-----\n(?:[A-Za-z0-9+/=]{1,64}\n)+-----END CERTIFICATE-----\n?$/;
const PEM_PRIVATE_KEY =
  /^-----BEGIN (EC )?PRIVATE KEY-----\n(?:[A-Za-z0-9+/=]{1,64}\n)+-----END \1PRIVATE KEY-----\n?$/;

const sorted = (value: object) => Object.keys(value).sort();

/** floor((expiresAt − t) / day) for t somewhere between `before` and `after`. */
function expectDaysLeft(days: number, expiresAt: string, before: number, after: number): void {
  const notAfter = Date.parse(expiresAt);
  const most = Math.max(0, Math.floor((notAfter - before) / DAY_MS));
  const least = Math.max(0, Math.floor((notAfter - after) / DAY_MS));
  expect(Number.isInteger(days)).toBe(true);
  expect(days).toBeGreaterThanOrEqual(least);
  expect(days).toBeLessThanOrEqual(most);
}

/** How far notBefore is set back from the issuing second (docs/certificate-profile.md). */
const BACKDATE_MS = 60_000;

/**
 * expiresAt = notBefore + validityDays − 1 s (RFC 5280 4.1.2.5 counts both ends in), notBefore being
 * the issuing second less a minute.
 */
function expectExpiry(expiresAt: string, validityDays: number, requestedAt: number, answeredAt: number) {
  expect(expiresAt).toMatch(ISO_DATE_TIME);
  const expiry = Date.parse(expiresAt);
  const span = validityDays * DAY_MS - 1000;
  expect(expiry).toBeGreaterThanOrEqual(Math.floor(requestedAt / 1000) * 1000 - BACKDATE_MS + span);
  expect(expiry).toBeLessThanOrEqual(answeredAt - BACKDATE_MS + span);
}

/** The base64 body of a PEM, without its header lines. */
const pemBody = (pem: string) =>
  pem
    .split('\n')
    .filter((line) => line.length > 0 && !line.startsWith('-----'))
    .join('');

describe.each(modes)('certificate lifecycle v1 over HTTP (%s)', (mode) => {
  const logs = captureLogs('debug');
  let sut: SystemUnderTest;
  let tenant: TestTenant;
  let other: TestTenant;
  const files = new TempFiles();

  beforeAll(async () => {
    sut = await startSystemUnderTest(mode, { serviceLogger: logs.serviceLogger, shippedBus: true });
    [tenant, other] = await Promise.all([
      createTenant(sut, { commonName: 'Lifecycle Root' }),
      createTenant(sut, { commonName: 'Other Tenant Root' }),
    ]);
  });

  afterAll(async () => {
    files.remove();
    await sut?.stop();
  });

  const getDetail = async (t: TestTenant, id: string) => {
    const answer = await t.get(`/v1/certificates/${id}`);
    expect(answer.status).toBe(200);
    return answer.json<Detail>();
  };
  const list = async (t: TestTenant) => {
    const answer = await t.get('/v1/certificates');
    expect(answer.status).toBe(200);
    return answer.json<{ certificates: Summary[] }>().certificates;
  };
  const renew = (t: TestTenant, id: string, body: unknown, options = {}) =>
    t.post(`/v1/certificates/${id}/renew`, body, options);
  const revoke = (t: TestTenant, id: string, body: unknown, options = {}) =>
    t.post(`/v1/certificates/${id}/revoke`, body, options);

  describe('issuing (POST /v1/certificates)', () => {
    const body = issueBody({ validityDays: 90 });
    let answer: HttpAnswer;
    let issued: IssuedCertificate;
    let requestedAt: number;
    let answeredAt: number;

    beforeAll(async () => {
      requestedAt = Date.now();
      answer = await tenant.post('/v1/certificates', body);
      answeredAt = Date.now();
      issued = answer.json<IssuedCertificate>();
    });

    it('answers 200 in JSON with exactly certificateId, serialNumber, expiresAt, certificatePem and privateKeyPem', () => {
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toMatch(/^application\/json(;|$)/);
      expect(sorted(issued)).toEqual(ISSUE_FIELDS);
      expect(issued.certificateId).toMatch(UUID);
      expect(issued.certificatePem).toMatch(PEM_CERTIFICATE);
      expect(issued.privateKeyPem).toMatch(PEM_PRIVATE_KEY);
    });

    it("gives the certificate's serial as uppercase hex of at least 16 digits", () => {
      expect(issued.serialNumber).toMatch(SERIAL);
      const certificate = new X509Certificate(issued.certificatePem);
      expect(certificate.serialNumber.toUpperCase()).toBe(issued.serialNumber);
      expect(certificateInfo(issued.certificatePem).serialNumberHex).toBe(issued.serialNumber);
    });

    it("answers expiresAt, the certificate's notAfter: exactly validityDays from a notBefore a minute back", () => {
      expectExpiry(issued.expiresAt, body.validityDays as number, requestedAt, answeredAt);
      const certificate = new X509Certificate(issued.certificatePem);
      expect(Date.parse(certificate.validTo)).toBe(Date.parse(issued.expiresAt));
      const notBefore = Date.parse(certificate.validFrom);
      expect(notBefore).toBeGreaterThanOrEqual(Math.floor(requestedAt / 1000) * 1000 - BACKDATE_MS);
      expect(notBefore).toBeLessThanOrEqual(answeredAt - BACKDATE_MS);
      expect(notBefore).toBeGreaterThanOrEqual(Date.parse(new X509Certificate(tenant.caPem).validFrom));
      expect(Date.parse(issued.expiresAt) - notBefore).toBe((body.validityDays as number) * DAY_MS - 1000);
    });

    describeIfOpenssl('validity as openssl reads it', () => {
      it('shows notBefore a minute back and notAfter one second short of validityDays (openssl x509 -dates)', () => {
        const dates = runOpenssl(['x509', '-noout', '-dates'], issued.certificatePem);
        const [, from, to] = /notBefore=(.+)\nnotAfter=(.+)\n/.exec(dates)!;
        expect(Date.parse(to) - Date.parse(from)).toBe((body.validityDays as number) * DAY_MS - 1000);
        expect(Date.parse(from)).toBeLessThanOrEqual(requestedAt - BACKDATE_MS + 1000);
      });

      it('verifies at once for a relying party whose clock is 5 s behind (openssl verify -attime)', () => {
        const ca = files.write('validity-ca.pem', tenant.caPem);
        const leaf = files.write('validity-leaf.pem', issued.certificatePem);
        const behind = String(Math.floor(requestedAt / 1000) - 5);
        const verified = spawnOpenssl(['verify', '-attime', behind, '-CAfile', ca, leaf]);
        expect(verified.stderr).toBe('');
        expect(verified.stdout).toBe(`${leaf}: OK\n`);
        // One second before notBefore it is, truthfully, not valid yet.
        const early = String(Date.parse(new X509Certificate(issued.certificatePem).validFrom) / 1000 - 1);
        expect(spawnOpenssl(['verify', '-attime', early, '-CAfile', ca, leaf]).stderr).toMatch(
          /not yet valid/,
        );
      });
    });

    it("returns the certificate's own private key, an EC P-256 key", () => {
      expect(keyMatchesCertificate(issued.privateKeyPem, issued.certificatePem)).toBe(true);
      const key = createPrivateKey(issued.privateKeyPem);
      expect(key.asymmetricKeyType).toBe('ec');
      expect(key.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
      // ... and no other certificate's key.
      expect(keyMatchesCertificate(issued.privateKeyPem, tenant.caPem)).toBe(false);
    });

    it('issues a client certificate for the requested subject, signed by the tenant CA', () => {
      const certificate = new X509Certificate(issued.certificatePem);
      const ca = new X509Certificate(tenant.caPem);
      expect(certificate.subject.split('\n').sort()).toEqual([
        'C=US',
        'CN=payments-client',
        'O=Acme Corp',
        'OU=Payments',
      ]);
      expect(certificate.issuer).toBe(ca.subject);
      expect(certificate.ca).toBe(false);
      expect(certificate.checkIssued(ca)).toBe(true);
      expect(certificate.verify(ca.publicKey)).toBe(true);
      expect(certificate.verify(new X509Certificate(other.caPem).publicKey)).toBe(false);
      const info = certificateInfo(issued.certificatePem);
      expect(info.extendedKeyUsages).toEqual(['clientAuth']);
      expect(info.dnsNames).toEqual([]);
      expect(info.mustStaple).toBe(false);
      expect(info.customExtensions).toEqual([]);
    });

    it('points at the distribution surface, whose caIssuers URL serves the CA as DER (application/pkix-cert)', async () => {
      const info = certificateInfo(issued.certificatePem);
      const base = `${sut.pkiUrl}/v1/tenants/${tenant.tenantId}`;
      expect(info.crlDistributionPointUrls).toEqual([`${base}/crl`]);
      expect(info.ocspUrls).toEqual([`${base}/ocsp`]);
      expect(info.caIssuersUrls).toEqual([`${base}/ca.crt`]);
      const served = await eventually(async () => {
        const a = await http(info.caIssuersUrls[0]);
        return a.status === 200 ? a : undefined;
      });
      expect(served.headers.get('content-type')).toMatch(/^application\/pkix-cert(;|$)/);
      expect(served.body).toEqual(tenant.caDer);
      expect(new X509Certificate(issued.certificatePem).checkIssued(new X509Certificate(served.body))).toBe(
        true,
      );
    });

    it('gives every certificate its own id, serial and key', async () => {
      const second = await tenant.issue(body);
      expect(second.certificateId).not.toBe(issued.certificateId);
      expect(second.serialNumber).not.toBe(issued.serialNumber);
      expect(second.privateKeyPem).not.toBe(issued.privateKeyPem);
      expect(keyMatchesCertificate(issued.privateKeyPem, second.certificatePem)).toBe(false);
    });

    it.each<[string, Record<string, unknown>]>([
      ['a clientId of 1 character', { clientId: 'c' }],
      ['a clientId of 100 characters', { clientId: 'c'.repeat(100) }],
      ['a commonName of 1 character', { commonName: 'N' }],
      ['a commonName of 64 characters', { commonName: 'N'.repeat(64) }],
      ['an organization of 1 character', { organization: 'O' }],
      ['an organization of 64 characters', { organization: 'O'.repeat(64) }],
      ['an organizationalUnit of 1 character', { organizationalUnit: 'U' }],
      ['an organizationalUnit of 64 characters', { organizationalUnit: 'U'.repeat(64) }],
      ['validityDays 1', { validityDays: 1 }],
      ['validityDays 3650', { validityDays: 3650 }],
      ['responseFormat "Text"', { responseFormat: 'Text' }],
      ['passwordProtected false', { passwordProtected: false }],
      ['non-ASCII names', { commonName: 'Zürich Client ✓', organization: 'Société Générale' }],
    ])('accepts %s', async (_name, overrides) => {
      const request = issueBody(overrides);
      const requestedAt = Date.now();
      const result = await tenant.issue(request);
      const answeredAt = Date.now();
      expect(sorted(result)).toEqual(ISSUE_FIELDS);
      expectExpiry(result.expiresAt, request.validityDays as number, requestedAt, answeredAt);
      const subject = new X509Certificate(result.certificatePem).subject.split('\n');
      expect(subject).toContain(`CN=${request.commonName}`);
      expect(subject).toContain(`O=${request.organization}`);
      expect(subject).toContain(`OU=${request.organizationalUnit}`);
      const detail = await getDetail(tenant, result.certificateId);
      expect(detail.clientId).toBe(request.clientId);
      expect(detail.commonName).toBe(request.commonName);
    });

    describe('refusing invalid requests with 400 naming each failing field', () => {
      let validation: TestTenant;
      beforeAll(async () => {
        validation = await createTenant(sut);
      });

      it.each<[string, unknown, string[]]>([
        ['an empty clientId', issueBody({ clientId: '' }), ['clientId']],
        ['a clientId of 101 characters', issueBody({ clientId: 'c'.repeat(101) }), ['clientId']],
        ['an empty commonName', issueBody({ commonName: '' }), ['commonName']],
        ['a commonName of 65 characters', issueBody({ commonName: 'N'.repeat(65) }), ['commonName']],
        ['an empty organization', issueBody({ organization: '' }), ['organization']],
        ['an organization of 65 characters', issueBody({ organization: 'O'.repeat(65) }), ['organization']],
        ['an empty organizationalUnit', issueBody({ organizationalUnit: '' }), ['organizationalUnit']],
        [
          'an organizationalUnit of 65 characters',
          issueBody({ organizationalUnit: 'U'.repeat(65) }),
          ['organizationalUnit'],
        ],
        ['country "us"', issueBody({ country: 'us' }), ['country']],
        ['country "USA"', issueBody({ country: 'USA' }), ['country']],
        ['country "U1"', issueBody({ country: 'U1' }), ['country']],
        ['validityDays 0', issueBody({ validityDays: 0 }), ['validityDays']],
        ['validityDays 3651', issueBody({ validityDays: 3651 }), ['validityDays']],
        ['validityDays "30" (a string)', issueBody({ validityDays: '30' }), ['validityDays']],
        ['validityDays 1.5', issueBody({ validityDays: 1.5 }), ['validityDays']],
        ['a missing clientId', issueBody({ clientId: undefined }), ['clientId']],
        [
          'a missing organizationalUnit',
          issueBody({ organizationalUnit: undefined }),
          ['organizationalUnit'],
        ],
        ['a missing validityDays', issueBody({ validityDays: undefined }), ['validityDays']],
        ['a numeric clientId', issueBody({ clientId: 42 }), ['clientId']],
        ['an unknown field', { ...issueBody(), keyAlgorithm: 'RSA' }, ['keyAlgorithm']],
        ['responseFormat "Pdf"', issueBody({ responseFormat: 'Pdf' }), ['responseFormat']],
        ['passwordProtected "yes"', issueBody({ passwordProtected: 'yes' }), ['passwordProtected']],
        [
          'an empty object',
          {},
          ['clientId', 'commonName', 'organization', 'organizationalUnit', 'country', 'validityDays'],
        ],
        [
          'several bad fields at once',
          issueBody({ clientId: '', country: 'usa', validityDays: 0 }),
          ['clientId', 'country', 'validityDays'],
        ],
        ['a JSON array', [issueBody()], ['body']],
        ['a v2 field (usage)', { ...issueBody(), usage: 'Server' }, ['usage']],
        [
          'v2 fields (subjectAlternativeNames, customExtensions)',
          { ...issueBody(), subjectAlternativeNames: ['a.example.com'], customExtensions: { a: 'b' } },
          ['subjectAlternativeNames', 'customExtensions'],
        ],
      ])('refuses %s', async (_name, request, fields) => {
        expectValidationProblem(await validation.post('/v1/certificates', request), fields);
      });

      it('issued nothing for the refused requests', async () => {
        expect(await list(validation)).toEqual([]);
      });
    });

    it('answers 404 NOT_FOUND to a tenant without a CA', async () => {
      const noCa = await createTenant(sut, { ca: false });
      expectProblem(await noCa.post('/v1/certificates', issueBody()), 404, 'NOT_FOUND', 'common/not-found');
      expect(await list(noCa)).toEqual([]);
    });

    it('refuses a certificate that would outlive its CA with 400 on validityDays (1-year CA, 400 days)', async () => {
      const shortCa = await createTenant(sut, { validityYears: 1 });
      const problem = expectValidationProblem(
        await shortCa.post('/v1/certificates', issueBody({ validityDays: 400 })),
        ['validityDays'],
      );
      expect(problem.errors).toHaveLength(1);
      const fits = await shortCa.issue(issueBody({ validityDays: 300 }));
      expect(Date.parse(fits.expiresAt)).toBeLessThanOrEqual(Date.parse(shortCa.caExpiresAt));
      expect((await list(shortCa)).map((c) => c.certificateId)).toEqual([fits.certificateId]);
    });

    it('refuses a token without certificates:write with 403 and issues nothing', async () => {
      const t = await createTenant(sut);
      for (const scope of ['certificates:read ca:admin', '', 'certificates:writer']) {
        const answer = await t.post('/v1/certificates', issueBody(), {
          bearer: await t.tokenWithScope(scope),
        });
        expectProblem(answer, 403, 'FORBIDDEN', 'common/forbidden');
      }
      expect(await list(t)).toEqual([]);
      const scp = await sut.tokens.sign(t.tenantId, {
        claims: { scope: undefined, scp: ['certificates:write'] },
      });
      expect((await t.post('/v1/certificates', issueBody(), { bearer: scp })).status).toBe(200);
    });

    it('refuses a request without a valid token with 401', async () => {
      expectInvalidToken(await tenant.post('/v1/certificates', issueBody(), { bearer: null }));
      const expired = await sut.tokens.sign(tenant.tenantId, { exp: Math.floor(Date.now() / 1000) - 60 });
      expectInvalidToken(
        await tenant.post('/v1/certificates', issueBody(), { bearer: expired }),
        'expired_token',
      );
    });
  });

  describeIfOpenssl('issued and renewed certificates as openssl reads them', () => {
    let issued: IssuedCertificate;
    let renewed: RenewedCertificate;
    let caFile: string;

    beforeAll(async () => {
      issued = await tenant.issue(issueBody({ validityDays: 120 }));
      const answer = await renew(tenant, issued.certificateId, { validityDays: 60 });
      expect(answer.status).toBe(200);
      renewed = answer.json<RenewedCertificate>();
      caFile = files.write('lifecycle-ca.pem', tenant.caPem);
    });

    it('verifies both with -x509_strict against the tenant CA', () => {
      for (const [name, pem] of [
        ['issued.pem', issued.certificatePem],
        ['renewed.pem', renewed.certificatePem],
      ]) {
        const file = files.write(name, pem);
        expect(runOpenssl(['verify', '-x509_strict', '-CAfile', caFile, file]).trim()).toBe(`${file}: OK`);
      }
      // ... and not against another tenant's CA.
      const otherCa = files.write('other-ca.pem', other.caPem);
      const leaf = files.write('issued-again.pem', issued.certificatePem);
      expect(spawnOpenssl(['verify', '-x509_strict', '-CAfile', otherCa, leaf]).status).not.toBe(0);
    });

    it('prints the serial of the answer', () => {
      for (const [pem, serial] of [
        [issued.certificatePem, issued.serialNumber],
        [renewed.certificatePem, renewed.serialNumber],
      ]) {
        expect(runOpenssl(['x509', '-noout', '-serial'], pem).trim()).toBe(`serial=${serial}`);
      }
    });

    it('shows the subject and the profile of docs/api.md#certificate-profile', () => {
      const caSki = runOpenssl(['x509', '-noout', '-text'], tenant.caPem).match(
        /X509v3 Subject Key Identifier: ?\n\s+([0-9A-F:]+)\n/,
      )![1];
      const base = `${sut.pkiUrl}/v1/tenants/${tenant.tenantId}`;
      for (const pem of [issued.certificatePem, renewed.certificatePem]) {
        const text = runOpenssl(['x509', '-noout', '-text'], pem);
        expect(text).toMatch(/Version: 3 \(0x2\)/);
        expect(text).toMatch(/Subject: C ?= ?US, O ?= ?Acme Corp, OU ?= ?Payments, CN ?= ?payments-client\n/);
        expect(text).toMatch(/Issuer: C ?= ?US, O ?= ?Acme Corp, CN ?= ?Lifecycle Root\n/);
        expect(text).toMatch(/X509v3 Basic Constraints: critical\n\s+CA:FALSE\n/);
        expect(text).toMatch(/X509v3 Key Usage: critical\n\s+Digital Signature\n/);
        expect(text).toMatch(/X509v3 Extended Key Usage: ?\n\s+TLS Web Client Authentication\n/);
        expect(text).toMatch(/X509v3 Subject Key Identifier: ?\n\s+([0-9A-F]{2}:)+[0-9A-F]{2}\n/);
        const aki = text.match(/X509v3 Authority Key Identifier: ?\n\s+(?:keyid:)?([0-9A-F:]+)\n/);
        expect(aki?.[1]).toBe(caSki);
        expect(text).toContain('X509v3 CRL Distribution Points:');
        expect(text).toMatch(new RegExp(`Full Name:\\n\\s+URI:${escapeRegExp(`${base}/crl`)}\\n`));
        expect(text).toContain('Authority Information Access:');
        expect(text).toMatch(new RegExp(`OCSP - URI:${escapeRegExp(`${base}/ocsp`)}\\n`));
        expect(text).toMatch(new RegExp(`CA Issuers - URI:${escapeRegExp(`${base}/ca.crt`)}\\n`));
        expect(text).toMatch(/Signature Algorithm: ecdsa-with-SHA256/);
        expect(text).toMatch(/ASN1 OID: prime256v1/);
      }
    });

    it("reads the private key as the certificate's key", () => {
      for (const { certificatePem, privateKeyPem } of [issued, renewed]) {
        const fromKey = runOpenssl(['pkey', '-pubout'], privateKeyPem);
        const fromCertificate = runOpenssl(['x509', '-noout', '-pubkey'], certificatePem);
        expect(fromKey).toBe(fromCertificate);
      }
    });
  });

  describe('listing and reading (GET /v1/certificates, /{id})', () => {
    let reader: TestTenant;
    const issued: IssuedCertificate[] = [];
    const bodies = [
      issueBody({ clientId: 'first', commonName: 'first-client', validityDays: 30 }),
      issueBody({ clientId: 'second', commonName: 'second-client', validityDays: 60 }),
      issueBody({ clientId: 'third', commonName: 'third-client', validityDays: 10 }),
    ];
    let firstRequestedAt: number;

    beforeAll(async () => {
      reader = await createTenant(sut);
      firstRequestedAt = Date.now();
      for (const body of bodies) issued.push(await reader.issue(body));
    });

    it("lists exactly the CertificateSummary fields of the tenant's certificates, newest first", async () => {
      const before = Date.now();
      const answer = await reader.get('/v1/certificates');
      const after = Date.now();
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toMatch(/^application\/json(;|$)/);
      const result = answer.json<{ certificates: Summary[] }>();
      expect(sorted(result)).toEqual(['certificates']);
      expect(result.certificates.map((c) => c.certificateId)).toEqual(
        [...issued].reverse().map((c) => c.certificateId),
      );
      for (const summary of result.certificates) {
        expect(sorted(summary)).toEqual(SUMMARY_FIELDS);
        const index = issued.findIndex((c) => c.certificateId === summary.certificateId);
        expect(summary).toEqual({
          certificateId: issued[index].certificateId,
          clientId: bodies[index].clientId,
          commonName: bodies[index].commonName,
          serialNumber: issued[index].serialNumber,
          status: 'Active',
          issuedAt: expect.stringMatching(ISO_DATE_TIME),
          expiresAt: issued[index].expiresAt,
          daysUntilExpiration: expect.any(Number),
        });
        expect(Date.parse(summary.issuedAt)).toBeGreaterThanOrEqual(
          Math.floor(firstRequestedAt / 1000) * 1000,
        );
        expect(Date.parse(summary.issuedAt)).toBeLessThanOrEqual(before);
        expectDaysLeft(summary.daysUntilExpiration, summary.expiresAt, before, after);
      }
      // 30 days from a minute back, less a second and the moments since: 29 whole days left.
      expect(result.certificates[2].daysUntilExpiration).toBe(29);
    });

    it("lists only the tenant's own certificates", async () => {
      const ids = new Set(issued.map((c) => c.certificateId));
      for (const summary of await list(other)) expect(ids.has(summary.certificateId)).toBe(false);
      const empty = await createTenant(sut);
      expect(await list(empty)).toEqual([]);
    });

    it('gets exactly the detail fields, without revokedAt and revocationReason while Active', async () => {
      const before = Date.now();
      const answer = await reader.get(`/v1/certificates/${issued[1].certificateId}`);
      const after = Date.now();
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toMatch(/^application\/json(;|$)/);
      const detail = answer.json<Detail>();
      expect(sorted(detail)).toEqual(DETAIL_FIELDS);
      expect(detail).toEqual({
        certificateId: issued[1].certificateId,
        tenantId: reader.tenantId,
        clientId: 'second',
        commonName: 'second-client',
        serialNumber: issued[1].serialNumber,
        certificatePem: expect.stringMatching(PEM_CERTIFICATE),
        chainPem: '', // a v1 root signs its leaves itself
        status: 'Active',
        issuedAt: expect.stringMatching(ISO_DATE_TIME),
        expiresAt: issued[1].expiresAt,
        daysUntilExpiration: 59,
        renewalWindow: {
          start: expect.stringMatching(ISO_DATE_TIME),
          end: expect.stringMatching(ISO_DATE_TIME),
        },
      });
      expect(pemToDer(detail.certificatePem)).toEqual(pemToDer(issued[1].certificatePem));
      expectDaysLeft(detail.daysUntilExpiration, detail.expiresAt, before, after);
      const summary = (await list(reader)).find((c) => c.certificateId === detail.certificateId)!;
      expect(detail.issuedAt).toBe(summary.issuedAt);
    });

    it('takes the id in upper case too', async () => {
      const detail = await getDetail(reader, issued[0].certificateId.toUpperCase());
      expect(detail.certificateId).toBe(issued[0].certificateId);
    });

    it('answers a malformed id with 400 on certificateId (get, renew, revoke)', async () => {
      for (const id of ['not-a-uuid', '12345', `${issued[0].certificateId}x`]) {
        expectValidationProblem(await reader.get(`/v1/certificates/${id}`), ['certificateId']);
        expectValidationProblem(await renew(reader, id, { validityDays: 30 }), ['certificateId']);
        expectValidationProblem(await revoke(reader, id, { reason: 'test' }), ['certificateId']);
      }
    });

    it('answers an id that exists nowhere with 404 NOT_FOUND (get, renew, revoke)', async () => {
      const id = randomUUID();
      expectProblem(await reader.get(`/v1/certificates/${id}`), 404, 'NOT_FOUND', 'common/not-found');
      expectProblem(await renew(reader, id, { validityDays: 30 }), 404, 'NOT_FOUND', 'common/not-found');
      expectProblem(await revoke(reader, id, { reason: 'test' }), 404, 'NOT_FOUND', 'common/not-found');
    });

    it("answers another tenant's certificate with 403 (get, renew, revoke) and changes nothing", async () => {
      const theirs = await other.issue(issueBody({ clientId: 'theirs' }));
      const countBefore = (await list(other)).length;
      const id = theirs.certificateId;
      expectProblem(await reader.get(`/v1/certificates/${id}`), 403, 'FORBIDDEN', 'common/forbidden');
      expectProblem(await renew(reader, id, { validityDays: 30 }), 403, 'FORBIDDEN', 'common/forbidden');
      expectProblem(await revoke(reader, id, { reason: 'not mine' }), 403, 'FORBIDDEN', 'common/forbidden');
      const detail = await getDetail(other, id);
      expect(detail.status).toBe('Active');
      expect(detail).not.toHaveProperty('revokedAt');
      expect(await list(other)).toHaveLength(countBefore);
    });

    it('refuses a token without certificates:read with 403 (list, get, expiring)', async () => {
      for (const scope of ['certificates:write', 'ca:admin', '']) {
        const bearer = await reader.tokenWithScope(scope);
        for (const path of [
          '/v1/certificates',
          `/v1/certificates/${issued[0].certificateId}`,
          '/v1/certificates/expiring',
        ]) {
          expectProblem(await reader.get(path, { bearer }), 403, 'FORBIDDEN', 'common/forbidden');
        }
      }
      const readOnly = await reader.tokenWithScope('certificates:read');
      expect((await reader.get('/v1/certificates', { bearer: readOnly })).status).toBe(200);
      expectInvalidToken(await reader.get('/v1/certificates', { bearer: null }));
    });

    it('refuses renew and revoke with a read-only token (403)', async () => {
      const bearer = await reader.tokenWithScope('certificates:read');
      const id = issued[0].certificateId;
      expectProblem(await renew(reader, id, { validityDays: 30 }, { bearer }), 403, 'FORBIDDEN');
      expectProblem(await revoke(reader, id, { reason: 'test' }, { bearer }), 403, 'FORBIDDEN');
      expect((await getDetail(reader, id)).status).toBe('Active');
      expect(await list(reader)).toHaveLength(issued.length);
    });
  });

  describe('expiring (GET /v1/certificates/expiring)', () => {
    let expiring: TestTenant;
    const byDays = new Map<number, IssuedCertificate>();
    let revoked: IssuedCertificate;

    beforeAll(async () => {
      expiring = await createTenant(sut);
      for (const days of [20, 5, 40, 10])
        byDays.set(days, await expiring.issue(issueBody({ validityDays: days })));
      revoked = await expiring.issue(issueBody({ validityDays: 3 }));
      expect((await revoke(expiring, revoked.certificateId, { reason: 'gone' })).status).toBe(200);
    });

    const query = (q = '') => expiring.get(`/v1/certificates/expiring${q}`);
    const idsOf = (days: number[]) => days.map((d) => byDays.get(d)!.certificateId);

    it('lists Active certificates expiring within 30 days by default, soonest first, not the revoked one', async () => {
      const before = Date.now();
      const answer = await query();
      const after = Date.now();
      expect(answer.status).toBe(200);
      const result = answer.json<{ certificates: Expiring[] }>();
      expect(sorted(result)).toEqual(['certificates']);
      expect(result.certificates.map((c) => c.certificateId)).toEqual(idsOf([5, 10, 20]));
      for (const entry of result.certificates) {
        expect(sorted(entry)).toEqual(EXPIRING_FIELDS);
        const days = [...byDays].find(([, c]) => c.certificateId === entry.certificateId)![0];
        expect(entry).toEqual({
          certificateId: byDays.get(days)!.certificateId,
          tenantId: expiring.tenantId,
          clientId: 'payments-service',
          commonName: 'payments-client',
          serialNumber: byDays.get(days)!.serialNumber,
          status: 'Active',
          expiresAt: byDays.get(days)!.expiresAt,
          daysUntilExpiration: days - 1,
        });
        expectDaysLeft(entry.daysUntilExpiration, entry.expiresAt, before, after);
      }
    });

    it.each<[string, number[]]>([
      ['?days=0', []],
      ['?days=4', []],
      ['?days=5', [5]],
      ['?days=15', [5, 10]],
      ['?days=30', [5, 10, 20]],
      ['?days=3650', [5, 10, 20, 40]],
    ])('answers %s with the certificates expiring within that window', async (q, days) => {
      const answer = await query(q);
      expect(answer.status).toBe(200);
      expect(answer.json<{ certificates: Expiring[] }>().certificates.map((c) => c.certificateId)).toEqual(
        idsOf(days),
      );
    });

    it.each(['-1', '3651', 'abc', '1.5'])('refuses days=%s with 400 on days', async (days) => {
      expectValidationProblem(await query(`?days=${days}`), ['days']);
    });

    it("does not list another tenant's certificates", async () => {
      const answer = await other.get('/v1/certificates/expiring?days=3650');
      expect(answer.status).toBe(200);
      const ids = new Set([...byDays.values()].map((c) => c.certificateId));
      for (const entry of answer.json<{ certificates: Expiring[] }>().certificates) {
        expect(entry.tenantId).toBe(other.tenantId);
        expect(ids.has(entry.certificateId)).toBe(false);
      }
    });
  });

  describe('renewing (POST /v1/certificates/{id}/renew)', () => {
    let renewer: TestTenant;
    let original: IssuedCertificate;
    let originalBefore: Detail;
    let answer: HttpAnswer;
    let renewed: RenewedCertificate;
    let requestedAt: number;
    let answeredAt: number;
    const body = issueBody({ clientId: 'renew-me', commonName: 'renewing-client', validityDays: 30 });

    beforeAll(async () => {
      renewer = await createTenant(sut);
      original = await renewer.issue(body);
      originalBefore = await getDetail(renewer, original.certificateId);
      requestedAt = Date.now();
      answer = await renew(renewer, original.certificateId, { validityDays: 200 });
      answeredAt = Date.now();
      renewed = answer.json<RenewedCertificate>();
    });

    it('answers 200 with exactly newCertificateId, serialNumber, expiresAt, certificatePem and privateKeyPem', () => {
      expect(answer.status).toBe(200);
      expect(sorted(renewed)).toEqual(RENEW_FIELDS);
      expect(renewed.newCertificateId).toMatch(UUID);
      expect(renewed.serialNumber).toMatch(SERIAL);
      expect(renewed.certificatePem).toMatch(PEM_CERTIFICATE);
      expect(renewed.privateKeyPem).toMatch(PEM_PRIVATE_KEY);
      expect(new X509Certificate(renewed.certificatePem).serialNumber.toUpperCase()).toBe(
        renewed.serialNumber,
      );
      expectExpiry(renewed.expiresAt, 200, requestedAt, answeredAt);
    });

    it('makes a new certificate: new id, serial and key, for the same subject and clientId', async () => {
      expect(renewed.newCertificateId).not.toBe(original.certificateId);
      expect(renewed.serialNumber).not.toBe(original.serialNumber);
      expect(keyMatchesCertificate(renewed.privateKeyPem, renewed.certificatePem)).toBe(true);
      expect(keyMatchesCertificate(original.privateKeyPem, renewed.certificatePem)).toBe(false);
      const before = new X509Certificate(original.certificatePem);
      const after = new X509Certificate(renewed.certificatePem);
      expect(after.subject).toBe(before.subject);
      expect(after.checkIssued(new X509Certificate(renewer.caPem))).toBe(true);
      expect(certificateInfo(renewed.certificatePem).extendedKeyUsages).toEqual(['clientAuth']);
      const detail = await getDetail(renewer, renewed.newCertificateId);
      expect(detail).toEqual(
        expect.objectContaining({
          clientId: 'renew-me',
          commonName: 'renewing-client',
          serialNumber: renewed.serialNumber,
          status: 'Active',
          expiresAt: renewed.expiresAt,
        }),
      );
      expect(pemToDer(detail.certificatePem)).toEqual(pemToDer(renewed.certificatePem));
    });

    it('leaves the original as it was: Active, the same PEM, not revoked', async () => {
      // Unchanged but for the successor it now names (its renewal).
      expect(await getDetail(renewer, original.certificateId)).toEqual({
        ...originalBefore,
        successorId: renewed.newCertificateId,
      });
      const ids = (await list(renewer)).map((c) => c.certificateId);
      expect(ids).toEqual([renewed.newCertificateId, original.certificateId]);
    });

    it.each<[string, unknown, string[]]>([
      ['validityDays 0', { validityDays: 0 }, ['validityDays']],
      ['validityDays 3651', { validityDays: 3651 }, ['validityDays']],
      ['validityDays "30" (a string)', { validityDays: '30' }, ['validityDays']],
      ['validityDays 1.5', { validityDays: 1.5 }, ['validityDays']],
      ['a missing validityDays', {}, ['validityDays']],
      ['an unknown field', { validityDays: 30, commonName: 'other' }, ['commonName']],
      ['responseFormat "Pdf"', { validityDays: 30, responseFormat: 'Pdf' }, ['responseFormat']],
      ['passwordProtected "yes"', { validityDays: 30, passwordProtected: 'yes' }, ['passwordProtected']],
    ])('refuses %s with 400 naming the field', async (_name, request, fields) => {
      expectValidationProblem(await renew(renewer, original.certificateId, request), fields);
    });

    it('accepts validityDays 1 and 3650', async () => {
      for (const validityDays of [1, 3650]) {
        const requested = Date.now();
        const result = await renew(renewer, original.certificateId, { validityDays });
        expect(result.status).toBe(200);
        expectExpiry(result.json<RenewedCertificate>().expiresAt, validityDays, requested, Date.now());
      }
    });

    it('refuses a renewal that would outlive the CA with 400 on validityDays', async () => {
      const shortCa = await createTenant(sut, { validityYears: 1 });
      const certificate = await shortCa.issue(issueBody({ validityDays: 30 }));
      expectValidationProblem(await renew(shortCa, certificate.certificateId, { validityDays: 400 }), [
        'validityDays',
      ]);
      expect(await list(shortCa)).toHaveLength(1);
    });

    it('refuses to renew a revoked certificate with 409 CONFLICT', async () => {
      const certificate = await renewer.issue(body);
      expect((await revoke(renewer, certificate.certificateId, { reason: 'superseded' })).status).toBe(200);
      const count = (await list(renewer)).length;
      expectProblem(
        await renew(renewer, certificate.certificateId, { validityDays: 30 }),
        409,
        'CONFLICT',
        'ca-manager/conflict',
      );
      expect(await list(renewer)).toHaveLength(count);
    });
  });

  describe('revoking (POST /v1/certificates/{id}/revoke)', () => {
    let revoker: TestTenant;
    let certificate: IssuedCertificate;
    let answer: HttpAnswer;
    let requestedAt: number;
    const reasonText = `laptop left on train 7f3a ${randomUUID()}`;

    beforeAll(async () => {
      revoker = await createTenant(sut);
      certificate = await revoker.issue(issueBody({ clientId: 'revoke-me' }));
      // The responder knows the certificate (good) before it is revoked.
      await eventually(
        async () => {
          const status = await ocspStatus(
            sut.pkiUrl,
            revoker.tenantId,
            revoker.caDer,
            certificate.serialNumber,
          );
          return status.kind === 'good' ? status : undefined;
        },
        5_000,
        'OCSP good for the issued certificate',
      );
      requestedAt = Date.now();
      answer = await revoke(revoker, certificate.certificateId, {
        reason: reasonText,
        reasonCode: 'KeyCompromise',
      });
    });

    it('answers 200 with exactly certificateId, revokedAt and published (true: OCSP already says revoked)', () => {
      expect(answer.status).toBe(200);
      const result = answer.json<{ certificateId: string; revokedAt: string; published: boolean }>();
      expect(sorted(result)).toEqual(['certificateId', 'published', 'revokedAt']);
      expect(result.published).toBe(true);
      expect(result.certificateId).toBe(certificate.certificateId);
      expect(result.revokedAt).toMatch(ISO_DATE_TIME);
      expect(Date.parse(result.revokedAt)).toBeGreaterThanOrEqual(Math.floor(requestedAt / 1000) * 1000);
      expect(Date.parse(result.revokedAt)).toBeLessThanOrEqual(Date.now());
    });

    it('shows the certificate as Revoked in get (with revokedAt and revocationReason) and in the list', async () => {
      const { revokedAt } = answer.json<{ revokedAt: string }>();
      const detail = await getDetail(revoker, certificate.certificateId);
      expect(sorted(detail)).toEqual([...DETAIL_FIELDS, 'revocationReason', 'revokedAt'].sort());
      expect(detail.status).toBe('Revoked');
      expect(detail.revokedAt).toBe(revokedAt);
      expect(typeof detail.revocationReason).toBe('string');
      expect([reasonText, 'KeyCompromise']).toContain(detail.revocationReason);
      const summary = (await list(revoker)).find((c) => c.certificateId === certificate.certificateId)!;
      expect(summary.status).toBe('Revoked');
      expect(sorted(summary)).toEqual(SUMMARY_FIELDS);
    });

    it('refuses to revoke it again with 409 CONFLICT and keeps the first revocation', async () => {
      const again = await revoke(revoker, certificate.certificateId, {
        reason: 'again',
        reasonCode: 'Superseded',
      });
      expectProblem(again, 409, 'CONFLICT', 'ca-manager/conflict');
      const detail = await getDetail(revoker, certificate.certificateId);
      expect(detail.revokedAt).toBe(answer.json<{ revokedAt: string }>().revokedAt);
    });

    it('answers OCSP (POST and GET) with revoked, the revocation time and reason keyCompromise within 5 s', async () => {
      const revokedAt = Date.parse(answer.json<{ revokedAt: string }>().revokedAt);
      for (const form of ['post', 'get'] as const) {
        const status = await eventuallyRevokedInOcsp(
          sut.pkiUrl,
          revoker.tenantId,
          revoker.caDer,
          certificate.serialNumber,
          form,
        );
        expect(status).toEqual({ kind: 'revoked', revocationTime: new Date(revokedAt), reasonCode: 1 });
      }
      const response = await http(`${sut.pkiUrl}/v1/tenants/${revoker.tenantId}/ocsp`, {
        method: 'POST',
        headers: { 'content-type': 'application/ocsp-request' },
        body: ocspRequestDer(revoker.caDer, certificate.serialNumber),
      });
      expect(response.headers.get('content-type')).toMatch(/^application\/ocsp-response(;|$)/);
      expect(response.body.includes(Buffer.from(reasonText))).toBe(false);
    });

    it('lists the serial in the CRL with reason keyCompromise (1), never the free-text reason', async () => {
      const revokedAt = Date.parse(answer.json<{ revokedAt: string }>().revokedAt);
      const { der, crl, contentType } = await eventuallyCrl(
        sut.pkiUrl,
        revoker.tenantId,
        (c) => c.entries.some((e) => e.serialNumberHex === certificate.serialNumber),
        'CRL listing the revoked serial',
      );
      expect(contentType).toMatch(/^application\/pkix-crl(;|$)/);
      expect(crl.entries).toEqual([
        { serialNumberHex: certificate.serialNumber, revocationDate: new Date(revokedAt), reasonCode: 1 },
      ]);
      expect(der.includes(Buffer.from(reasonText))).toBe(false);
      expect(der.includes(Buffer.from('laptop'))).toBe(false);
    });

    describeIfOpenssl('as openssl sees it', () => {
      let caFile: string;
      let leafFile: string;
      beforeAll(() => {
        caFile = files.write('revoker-ca.pem', revoker.caPem);
        leafFile = files.write('revoked-leaf.pem', certificate.certificatePem);
      });

      it('openssl ocsp says revoked with reason keyCompromise, and the response verifies', async () => {
        const url = `${sut.pkiUrl}/v1/tenants/${revoker.tenantId}/ocsp`;
        const result = await eventually(
          async () => {
            const r = await opensslAsync([
              'ocsp',
              '-issuer',
              caFile,
              '-cert',
              leafFile,
              '-url',
              url,
              '-CAfile',
              caFile,
              '-no_nonce',
            ]);
            return r.stdout.includes(`${leafFile}: revoked`) ? r : undefined;
          },
          5_000,
          'openssl ocsp answering revoked',
        );
        expect(result.status).toBe(0);
        expect(result.stderr + result.stdout).toContain('Response verify OK');
        expect(result.stdout).toMatch(/Reason: keyCompromise/);
        expect(result.stdout).toMatch(/Revocation Time: /);
        expect(result.stdout + result.stderr).not.toContain('laptop');
      });

      it('openssl crl lists the serial with Key Compromise, not the reason text; verify -crl_check fails', async () => {
        const { der } = await eventuallyCrl(sut.pkiUrl, revoker.tenantId, (c) =>
          c.entries.some((e) => e.serialNumberHex === certificate.serialNumber),
        );
        const crlFile = files.write('revoker.crl', der);
        const text = runOpenssl(['crl', '-inform', 'DER', '-in', crlFile, '-noout', '-text']);
        expect(text).toContain(`Serial Number: ${certificate.serialNumber}`);
        expect(text).toMatch(/X509v3 CRL Reason Code: ?\n\s+Key Compromise\n/);
        expect(text).not.toContain(reasonText);
        expect(text).not.toContain('laptop');
        // Signed by the tenant CA.
        const checked = await opensslAsync([
          'crl',
          '-inform',
          'DER',
          '-in',
          crlFile,
          '-CAfile',
          caFile,
          '-noout',
        ]);
        expect(checked.stderr + checked.stdout).toMatch(/verify OK/);
        const crlPem = files.write('revoker-crl.pem', runOpenssl(['crl', '-inform', 'DER', '-in', crlFile]));
        const verify = spawnOpenssl([
          'verify',
          '-crl_check',
          '-CAfile',
          caFile,
          '-CRLfile',
          crlPem,
          leafFile,
        ]);
        expect(verify.status).not.toBe(0);
        expect(verify.stdout + verify.stderr).toMatch(/certificate revoked/);
      });
    });

    it.each<[string, unknown, string[]]>([
      ['an empty reason', { reason: '' }, ['reason']],
      ['a reason of 256 characters', { reason: 'r'.repeat(256) }, ['reason']],
      ['a missing reason', { reasonCode: 'KeyCompromise' }, ['reason']],
      ['a numeric reason', { reason: 42 }, ['reason']],
      ['reasonCode "Bogus"', { reason: 'x', reasonCode: 'Bogus' }, ['reasonCode']],
      ['reasonCode 1 (a number)', { reason: 'x', reasonCode: 1 }, ['reasonCode']],
      [
        'reasonCode "keyCompromise" (wrong case)',
        { reason: 'x', reasonCode: 'keyCompromise' },
        ['reasonCode'],
      ],
      ['an unknown field', { reason: 'x', comment: 'y' }, ['comment']],
      ['an empty object', {}, ['reason']],
    ])(
      'refuses %s with 400 naming the field and leaves the certificate Active',
      async (_name, request, fields) => {
        const target = await revoker.issue(issueBody());
        expectValidationProblem(await revoke(revoker, target.certificateId, request), fields);
        expect((await getDetail(revoker, target.certificateId)).status).toBe('Active');
      },
    );

    it('accepts a reason of 255 characters and defaults reasonCode to Unspecified (0)', async () => {
      const target = await revoker.issue(issueBody());
      const result = await revoke(revoker, target.certificateId, { reason: 'r'.repeat(255) });
      expect(result.status).toBe(200);
      const { crl } = await eventuallyCrl(sut.pkiUrl, revoker.tenantId, (c) =>
        c.entries.some((e) => e.serialNumberHex === target.serialNumber),
      );
      expect(crl.entries.find((e) => e.serialNumberHex === target.serialNumber)!.reasonCode).toBe(0);
    });

    it('carries every reasonCode accepted for an end-entity certificate to the CRL and OCSP as its RFC 5280 number', async () => {
      // RemoveFromCrl, CaCompromise and AaCompromise are refused (hold-and-reasons.int-spec.ts).
      const codes: [string, number][] = [
        ['Unspecified', 0],
        ['KeyCompromise', 1],
        ['AffiliationChanged', 3],
        ['Superseded', 4],
        ['CessationOfOperation', 5],
        ['CertificateHold', 6],
        ['PrivilegeWithdrawn', 9],
      ];
      const t = await createTenant(sut);
      const serials = new Map<string, number>();
      for (const [reasonCode, number] of codes) {
        const target = await t.issue(issueBody());
        expect(
          (await revoke(t, target.certificateId, { reason: `because ${reasonCode}`, reasonCode })).status,
        ).toBe(200);
        serials.set(target.serialNumber, number);
      }
      const { crl } = await eventuallyCrl(
        sut.pkiUrl,
        t.tenantId,
        (c) => c.entries.length === codes.length,
        'CRL listing every revocation',
      );
      expect(new Map(crl.entries.map((e) => [e.serialNumberHex, e.reasonCode]))).toEqual(serials);
      for (const [serial, number] of serials) {
        const status = await eventuallyRevokedInOcsp(sut.pkiUrl, t.tenantId, t.caDer, serial);
        expect(status.kind === 'revoked' && (status.reasonCode ?? 0)).toBe(number);
      }
    });

    it('lets exactly one of two concurrent revocations succeed; the other gets 409', async () => {
      const target = await revoker.issue(issueBody());
      const answers = await Promise.all([
        revoke(revoker, target.certificateId, { reason: 'first', reasonCode: 'Superseded' }),
        revoke(revoker, target.certificateId, { reason: 'second', reasonCode: 'KeyCompromise' }),
      ]);
      expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
      expectProblem(
        answers.find((a) => a.status === 409)!,
        409,
        'CONFLICT',
      );
      const winner = answers.find((a) => a.status === 200)!.json<{ revokedAt: string }>();
      expect((await getDetail(revoker, target.certificateId)).revokedAt).toBe(winner.revokedAt);
      const { crl } = await eventuallyCrl(sut.pkiUrl, revoker.tenantId, (c) =>
        c.entries.some((e) => e.serialNumberHex === target.serialNumber),
      );
      expect(crl.entries.filter((e) => e.serialNumberHex === target.serialNumber)).toHaveLength(1);
    });
  });

  describe('the private key is never stored or logged', () => {
    it('finds no trace of issued or renewed private keys in any table or in the debug logs', async () => {
      const t = await createTenant(sut);
      const issued = await t.issue(issueBody({ clientId: 'secret-keeper' }));
      const renewedAnswer = await renew(t, issued.certificateId, { validityDays: 100 });
      expect(renewedAnswer.status).toBe(200);
      const renewed = renewedAnswer.json<RenewedCertificate>();
      // Let every consumer (revocation, responder) take in the events before looking.
      for (const serial of [issued.serialNumber, renewed.serialNumber]) {
        await eventually(async () => {
          const status = await ocspStatus(sut.pkiUrl, t.tenantId, t.caDer, serial);
          return status.kind === 'good' ? status : undefined;
        });
      }

      const dump = await dumpDatabase(sut.databaseUrl);
      expect(dump.schemas).toEqual(expect.arrayContaining(['issuance', 'revocation', 'ocsp']));
      if (mode === 'embedded') expect(dump.schemas).toContain('messaging');
      const streams =
        mode !== 'postgres+nats'
          ? ''
          : sut.natsStoreDir
            ? dumpFiles(sut.natsStoreDir)
            : await dumpStreams(sut.messagingOptions.streamName);
      const logText = logs.text();
      expect(logs.lineCount()).toBeGreaterThan(0);

      // The search works: the certificates themselves are stored (as DER) and their events travel.
      for (const certificatePem of [issued.certificatePem, renewed.certificatePem]) {
        expect(dump.text.toLowerCase()).toContain(Buffer.from(pemToDer(certificatePem)).toString('hex'));
      }
      expect(dump.text).toContain(renewed.newCertificateId);
      if (mode === 'postgres+nats') expect(streams).toContain(renewed.newCertificateId);

      for (const privateKeyPem of [issued.privateKeyPem, renewed.privateKeyPem]) {
        const needles = privateKeyNeedles(privateKeyPem);
        for (const [where, haystack] of [
          ['the database', dump.text],
          ['the logs', logText],
          ['the event stream', streams],
        ] as const) {
          const normalized = haystack.replace(/\\r|\\n|\s/g, '');
          const lower = haystack.toLowerCase();
          for (const [name, needle] of needles.text) {
            expect(`${name} in ${where}: ${haystack.includes(needle) || normalized.includes(needle)}`).toBe(
              `${name} in ${where}: false`,
            );
          }
          for (const [name, needle] of needles.hex) {
            expect(`${name} in ${where}: ${lower.includes(needle)}`).toBe(`${name} in ${where}: false`);
          }
        }
      }
    });
  });
});

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** What would give a private key away: its PEM body (whole and by line), DER and scalar in hex and base64. */
function privateKeyNeedles(privateKeyPem: string): { text: [string, string][]; hex: [string, string][] } {
  const key = createPrivateKey(privateKeyPem);
  const pkcs8 = key.export({ format: 'der', type: 'pkcs8' });
  const sec1 = key.export({ format: 'der', type: 'sec1' });
  const d = Buffer.from(key.export({ format: 'jwk' }).d!, 'base64url');
  const body = pemBody(privateKeyPem);
  const lines = privateKeyPem.split('\n').filter((l) => l.length >= 32 && !l.startsWith('-----'));
  return {
    text: [
      ['the PEM body', body],
      ['the PKCS#8 DER in base64', pkcs8.toString('base64')],
      ['the SEC1 DER in base64', sec1.toString('base64')],
      ['the private scalar in base64url', d.toString('base64url')],
      ['the private scalar in base64', d.toString('base64')],
      ...lines.map((line, i): [string, string] => [`PEM line ${i + 1}`, line]),
    ],
    hex: [
      ['the PKCS#8 DER in hex', pkcs8.toString('hex')],
      ['the SEC1 DER in hex', sec1.toString('hex')],
      ['the private scalar in hex', d.toString('hex')],
    ],
  };
}

/** Every row of every table outside the system schemas as text; bytea as hex. */
async function dumpDatabase(url: string): Promise<{ schemas: string[]; text: string }> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const { rows: columns } = await client.query<{
      table_schema: string;
      table_name: string;
      column_name: string;
      data_type: string;
    }>(
      `SELECT c.table_schema, c.table_name, c.column_name, c.data_type
         FROM information_schema.columns c
         JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
        WHERE t.table_type = 'BASE TABLE'
          AND c.table_schema NOT IN ('pg_catalog', 'information_schema')
          AND c.table_schema NOT LIKE 'pg\\_%'
        ORDER BY c.table_schema, c.table_name, c.ordinal_position`,
    );
    const tables = new Map<string, { schema: string; table: string; expressions: string[] }>();
    for (const column of columns) {
      const key = `${column.table_schema}.${column.table_name}`;
      const entry = tables.get(key) ?? {
        schema: column.table_schema,
        table: column.table_name,
        expressions: [],
      };
      const name = `"${column.column_name.replace(/"/g, '""')}"`;
      entry.expressions.push(column.data_type === 'bytea' ? `encode(${name}, 'hex')` : `${name}::text`);
      tables.set(key, entry);
    }
    const parts: string[] = [];
    for (const { schema, table, expressions } of tables.values()) {
      const { rows } = await client.query<{ row: string }>(
        `SELECT concat_ws(' | ', ${expressions.join(', ')}) AS row FROM "${schema}"."${table}"`,
      );
      parts.push(`## ${schema}.${table}`, ...rows.map((r) => r.row));
    }
    return { schemas: [...new Set([...tables.values()].map((t) => t.schema))], text: parts.join('\n') };
  } finally {
    await client.end();
  }
}

/** Every file of a NATS server's store (the shipped bus: no user may read the whole stream), as text and hex. */
function dumpFiles(dir: string): string {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => {
      const data = readFileSync(join(entry.parentPath, entry.name));
      return `${entry.name}\n${data.toString('utf8')}\n${data.toString('hex')}`;
    })
    .join('\n');
}

/** Every message of the suite's JetStream stream and of its object store, as text and hex. */
async function dumpStreams(streamName: string): Promise<string> {
  const nc = await connect({ servers: process.env.NATS_URL! });
  try {
    const jsm = await nc.jetstreamManager();
    const parts: string[] = [];
    for (const stream of [streamName, `OBJ_${streamName}_BLOBS`]) {
      const info = await jsm.streams.info(stream).catch(() => undefined);
      if (!info) continue;
      for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages > 0; seq++) {
        const message = await jsm.streams.getMessage(stream, { seq }).catch(() => undefined);
        if (!message) continue;
        const data = Buffer.from(message.data);
        parts.push(`${stream} ${seq} ${message.subject}`, data.toString('utf8'), data.toString('hex'));
      }
    }
    return parts.join('\n');
  } finally {
    await nc.close();
  }
}
