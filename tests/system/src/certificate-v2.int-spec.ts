import 'reflect-metadata';
import { X509Certificate, randomUUID } from 'node:crypto';
import { AddressInfo } from 'node:net';
import { TLSSocket, connect as tlsConnect, createServer as createTlsServer } from 'node:tls';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { pemToDer } from '@ca/pki';
import { describeIfOpenssl, hasOpenssl, runOpenssl } from '@ca/pki/testing';
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
import { HttpAnswer } from './support/http';
import { TempFiles, certificateInfo } from './support/pki';
import { expectProblem, expectValidationProblem } from './support/problems';
import { SystemUnderTest, startSystemUnderTest, systemModes } from './support/system-under-test';

/**
 * V2 issuance and renewal (docs/api.md#issue-a-certificate-v2, docs/api.md#renew-a-certificate, docs/api.md#versioning) over HTTP: usage and its extended key usages,
 * DNS subject alternative names, must-staple, custom key/value extensions, what renewal keeps, and
 * that a v2 server certificate works for real TLS with Node's `tls`. Runs embedded and, when
 * DATABASE_URL and NATS_URL are set, on Postgres + NATS; one system per mode, own tenants.
 */
jest.setTimeout(60_000);

const modes = systemModes('certificate v2 suite');

const CUSTOM_ARC = '1.3.6.1.4.1.99999.2';
const TLS_FEATURE = '1.3.6.1.5.5.7.1.24';

const sorted = (value: object) => Object.keys(value).sort();

/** A v2 body for a server certificate, with overrides (undefined leaves a field out). */
const serverBody = (overrides: Record<string, unknown> = {}): Record<string, unknown> =>
  issueBody({
    clientId: 'edge-proxy',
    commonName: 'edge-server',
    organizationalUnit: 'Platform',
    usage: 'Server',
    subjectAlternativeNames: ['api.example.com'],
    validityDays: 90,
    ...overrides,
  });

/** The custom extensions of a certificate read with asn1js/pkijs directly (not through @ca/pki). */
function customExtensionsOf(pem: string): { oid: string; critical: boolean; key: string; value: string }[] {
  const certificate = pkijs.Certificate.fromBER(pemToDer(pem));
  return (certificate.extensions ?? [])
    .filter((e) => e.extnID.startsWith(`${CUSTOM_ARC}.`))
    .map((e) => {
      const parsed = asn1js.fromBER(e.extnValue.valueBlock.valueHexView);
      const sequence = parsed.result as asn1js.Sequence;
      expect(sequence).toBeInstanceOf(asn1js.Sequence);
      const [key, value] = sequence.valueBlock.value as asn1js.Utf8String[];
      expect(sequence.valueBlock.value).toHaveLength(2);
      expect(key).toBeInstanceOf(asn1js.Utf8String);
      expect(value).toBeInstanceOf(asn1js.Utf8String);
      return {
        oid: e.extnID,
        critical: e.critical,
        key: key.valueBlock.value,
        value: value.valueBlock.value,
      };
    });
}

/** The custom extensions as {key, value}, each under its own arc, each once, not critical. */
function expectCustomExtensions(pem: string, expected: Record<string, string>): void {
  const found = customExtensionsOf(pem);
  const entries = Object.entries(expected);
  expect(found).toHaveLength(entries.length);
  // Each key keeps the arc its tenant gave it on first use, so the arcs are distinct, not 1..n.
  const arcs = found.map((e) => e.oid.slice(CUSTOM_ARC.length + 1));
  for (const arc of arcs) expect(arc).toMatch(/^[1-9]\d*$/);
  expect(new Set(arcs).size).toBe(entries.length);
  for (const e of found) expect(e.critical).toBe(false);
  expect(Object.fromEntries(found.map((e) => [e.key, e.value]))).toEqual(expected);
  // The library's own reading agrees.
  expect(
    certificateInfo(pem)
      .customExtensions.map(({ oid, key, value }) => ({ oid, key, value }))
      .sort((a, b) => a.oid.localeCompare(b.oid)),
  ).toEqual(
    found.map(({ oid, key, value }) => ({ oid, key, value })).sort((a, b) => a.oid.localeCompare(b.oid)),
  );
}

describe.each(modes)('certificates v2 over HTTP (%s)', (mode) => {
  let sut: SystemUnderTest;
  let tenant: TestTenant;

  beforeAll(async () => {
    sut = await startSystemUnderTest(mode);
    tenant = await createTenant(sut, { commonName: 'V2 Test Root' });
  });

  afterAll(async () => {
    await sut?.stop();
  });

  const issueV2 = (body: unknown, options = {}) => tenant.post('/v2/certificates', body, options);
  async function issued(body: Record<string, unknown>): Promise<IssuedCertificate> {
    const answer = await issueV2(body);
    expect(answer.status).toBe(200);
    const result = answer.json<IssuedCertificate>();
    expect(sorted(result)).toEqual(ISSUE_FIELDS);
    return result;
  }
  const getDetail = async (t: TestTenant, id: string) => {
    const answer = await t.get(`/v1/certificates/${id}`);
    expect(answer.status).toBe(200);
    return answer.json<Detail>();
  };

  describe('usage and extended key usage', () => {
    it.each<[string, Record<string, unknown>, string[], string[]]>([
      [
        'no usage (Client by default)',
        { usage: undefined, subjectAlternativeNames: undefined },
        ['clientAuth'],
        ['TLS Web Client Authentication'],
      ],
      [
        'Client',
        { usage: 'Client', subjectAlternativeNames: undefined },
        ['clientAuth'],
        ['TLS Web Client Authentication'],
      ],
      ['Server', { usage: 'Server' }, ['serverAuth'], ['TLS Web Server Authentication']],
      [
        'ClientAndServer',
        { usage: 'ClientAndServer' },
        ['clientAuth', 'serverAuth'],
        ['TLS Web Server Authentication', 'TLS Web Client Authentication'],
      ],
    ])('issues usage %s with the matching EKUs', async (_name, overrides, ekus, opensslNames) => {
      const result = await issued(serverBody(overrides));
      const info = certificateInfo(result.certificatePem);
      expect([...info.extendedKeyUsages].sort()).toEqual(ekus);
      expect(keyMatchesCertificate(result.privateKeyPem, result.certificatePem)).toBe(true);
      expect(new X509Certificate(result.certificatePem).checkIssued(new X509Certificate(tenant.caPem))).toBe(
        true,
      );
      if (ekus.includes('serverAuth')) expect(info.dnsNames).toEqual(['api.example.com']);
      else expect(info.dnsNames).toEqual([]);
      if (hasOpenssl()) {
        const text = runOpenssl(['x509', '-noout', '-text'], result.certificatePem);
        const line = text.match(/X509v3 Extended Key Usage: ?\n\s+(.+)\n/)![1];
        expect(line.split(', ').sort()).toEqual([...opensslNames].sort());
        expect(text).toMatch(/X509v3 Key Usage: critical\n\s+Digital Signature\n/);
        expect(text).toMatch(/X509v3 Basic Constraints: critical\n\s+CA:FALSE\n/);
      }
    });

    it('accepts DNS names on a Client certificate too', async () => {
      const result = await issued(
        serverBody({ usage: 'Client', subjectAlternativeNames: ['client.example.com'] }),
      );
      const info = certificateInfo(result.certificatePem);
      expect(info.extendedKeyUsages).toEqual(['clientAuth']);
      expect(info.dnsNames).toEqual(['client.example.com']);
    });

    it('refuses an unknown usage with 400 on usage', async () => {
      expectValidationProblem(await issueV2(serverBody({ usage: 'CodeSigning' })), ['usage']);
      expectValidationProblem(await issueV2(serverBody({ usage: 'server' })), ['usage']);
    });

    it('applies the v1 rules to the v1 fields', async () => {
      expectValidationProblem(await issueV2(serverBody({ country: 'USA', clientId: '' })), [
        'country',
        'clientId',
      ]);
      expectValidationProblem(await issueV2({ ...serverBody(), keyAlgorithm: 'RSA' }), ['keyAlgorithm']);
      expectValidationProblem(await issueV2(serverBody({ responseFormat: 'file' })), ['responseFormat']);
      expectValidationProblem(await issueV2(serverBody({ passwordProtected: 1 })), ['passwordProtected']);
    });

    it('answers 404 NOT_FOUND to a tenant without a CA', async () => {
      const noCa = await createTenant(sut, { ca: false });
      expectProblem(await noCa.post('/v2/certificates', serverBody()), 404, 'NOT_FOUND', 'common/not-found');
    });

    it('refuses a token without certificates:write with 403', async () => {
      const bearer = await tenant.tokenWithScope('certificates:read ca:admin');
      expectProblem(await issueV2(serverBody(), { bearer }), 403, 'FORBIDDEN', 'common/forbidden');
    });
  });

  describe('subjectAlternativeNames', () => {
    it.each(['Server', 'ClientAndServer'])(
      'are required for %s: 400 on subjectAlternativeNames when missing or empty',
      async (usage) => {
        for (const subjectAlternativeNames of [undefined, []]) {
          expectValidationProblem(await issueV2(serverBody({ usage, subjectAlternativeNames })), [
            'subjectAlternativeNames',
          ]);
        }
      },
    );

    it('accepts 50 names and refuses 51 with 400 on subjectAlternativeNames', async () => {
      const names = Array.from({ length: 51 }, (_, i) => `host-${i}.example.com`);
      const fifty = await issued(serverBody({ subjectAlternativeNames: names.slice(0, 50) }));
      expect(certificateInfo(fifty.certificatePem).dnsNames).toEqual(names.slice(0, 50));
      expectValidationProblem(await issueV2(serverBody({ subjectAlternativeNames: names })), [
        'subjectAlternativeNames',
      ]);
    });

    it.each<[string, string, string]>([
      ['an IPv4 address', '10.0.0.1', 'api.example.com'],
      ['an IPv6 address', '::1', 'api.example.com'],
      ['a two-level wildcard', '*.*.example.com', 'api.example.com'],
      ['an inner wildcard label', 'a.*.example.com', 'api.example.com'],
      ['a partial wildcard', 'f*o.example.com', 'api.example.com'],
      ['an empty label', 'a..example.com', 'api.example.com'],
      ['a label of 64 characters', `${'a'.repeat(64)}.example.com`, 'api.example.com'],
      [
        'a name of 254 characters',
        `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(62)}`,
        'ok.example.com',
      ],
      ['a duplicate', 'api.example.com', 'api.example.com'],
      ['a duplicate in another case', 'API.Example.com', 'api.example.com'],
      ['a U-label (not punycode)', 'bücher.example', 'api.example.com'],
      ['an empty name', '', 'api.example.com'],
    ])('refuses %s with 400 on subjectAlternativeNames[1]', async (_name, bad, first) => {
      if (bad.length > 250) expect(bad).toHaveLength(254);
      const problem = expectValidationProblem(
        await issueV2(serverBody({ subjectAlternativeNames: [first, bad] })),
        ['subjectAlternativeNames[1]'],
      );
      expect(problem.errors).toHaveLength(1);
    });

    it('names every bad entry by its index', async () => {
      const names = ['10.0.0.1', 'ok.example.com', '*.*.example.com', 'fine.example.com', 'a..b'];
      expectValidationProblem(await issueV2(serverBody({ subjectAlternativeNames: names })), [
        'subjectAlternativeNames[0]',
        'subjectAlternativeNames[2]',
        'subjectAlternativeNames[4]',
      ]);
    });

    it('refuses a non-array or non-string entries', async () => {
      expectValidationProblem(await issueV2(serverBody({ subjectAlternativeNames: 'api.example.com' })), [
        'subjectAlternativeNames',
      ]);
      const problem = expectProblem(
        await issueV2(serverBody({ subjectAlternativeNames: ['api.example.com', 42] })),
        400,
        'VALIDATION_FAILED',
      );
      expect(problem.errors!.every((e) => e.field.startsWith('subjectAlternativeNames'))).toBe(true);
    });

    it('accepts A-labels, a single-level wildcard, a 63-character label and a 253-character name', async () => {
      const longest = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}`;
      expect(longest).toHaveLength(253);
      const names = ['xn--bcher-kva.example', '*.example.com', `${'l'.repeat(63)}.example.com`, longest];
      const result = await issued(serverBody({ subjectAlternativeNames: names }));
      expect(certificateInfo(result.certificatePem).dnsNames).toEqual(names);
    });

    it('puts a commonName that is a DNS name into the SAN of a Server certificate', async () => {
      const result = await issued(
        serverBody({ commonName: 'www.example.org', subjectAlternativeNames: ['api.example.org'] }),
      );
      expect([...certificateInfo(result.certificatePem).dnsNames].sort()).toEqual([
        'api.example.org',
        'www.example.org',
      ]);
      expect(new X509Certificate(result.certificatePem).subject).toContain('CN=www.example.org');
      // Listed already: not twice.
      const again = await issued(
        serverBody({ commonName: 'www.example.org', subjectAlternativeNames: ['www.example.org'] }),
      );
      expect(certificateInfo(again.certificatePem).dnsNames).toEqual(['www.example.org']);
    });
  });

  describe('validityDays by usage', () => {
    it.each<[string, number, number]>([
      ['Server', 825, 200],
      ['Server', 826, 400],
      ['ClientAndServer', 825, 200],
      ['ClientAndServer', 826, 400],
      ['Client', 3650, 200],
      ['Client', 3651, 400],
    ])('%s for %i days: %i', async (usage, validityDays, status) => {
      const requestedAt = Date.now();
      const answer = await issueV2(serverBody({ usage, validityDays }));
      if (status === 400) {
        expectValidationProblem(answer, ['validityDays']);
        return;
      }
      expect(answer.status).toBe(200);
      const { expiresAt } = answer.json<IssuedCertificate>();
      // notBefore a minute back; validityDays end one second early (RFC 5280 4.1.2.5, both ends count).
      const span = validityDays * DAY_MS - 61_000;
      expect(Date.parse(expiresAt)).toBeGreaterThanOrEqual(Math.floor(requestedAt / 1000) * 1000 + span);
      expect(Date.parse(expiresAt)).toBeLessThanOrEqual(Date.now() + span);
    });
  });

  describe('mustStaple', () => {
    it('is refused for a Client certificate (400 on mustStaple)', async () => {
      for (const usage of ['Client', undefined]) {
        expectValidationProblem(
          await issueV2(serverBody({ usage, subjectAlternativeNames: undefined, mustStaple: true })),
          ['mustStaple'],
        );
      }
      expectValidationProblem(await issueV2(serverBody({ mustStaple: 'yes' })), ['mustStaple']);
      const withoutStaple = await issued(serverBody({ usage: 'Client', mustStaple: false }));
      expect(certificateInfo(withoutStaple.certificatePem).mustStaple).toBe(false);
    });

    it.each(['Server', 'ClientAndServer'])(
      'adds the TLS Feature status_request to a %s certificate',
      async (usage) => {
        const result = await issued(serverBody({ usage, mustStaple: true }));
        const info = certificateInfo(result.certificatePem);
        expect(info.mustStaple).toBe(true);
        expect(info.extensionOids).toContain(TLS_FEATURE);
        if (hasOpenssl()) {
          const text = runOpenssl(['x509', '-noout', '-text'], result.certificatePem);
          expect(text).toMatch(/TLS Feature: ?\n\s+status_request\n/);
        }
        const plain = await issued(serverBody({ usage }));
        expect(certificateInfo(plain.certificatePem).extensionOids).not.toContain(TLS_FEATURE);
      },
    );
  });

  describe('customExtensions', () => {
    const ten = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`key-${i}`, `value ${i}`]));

    it('embeds 10 entries, each readable back as {key, value} under 1.3.6.1.4.1.99999.2.{n}', async () => {
      const result = await issued(serverBody({ customExtensions: ten }));
      expectCustomExtensions(result.certificatePem, ten);
    });

    it('keeps keys and values of 255 characters and non-ASCII text intact', async () => {
      const extensions = { ['k'.repeat(255)]: 'v'.repeat(255), région: 'Zürich ✓ 東京' };
      const result = await issued(serverBody({ customExtensions: extensions }));
      expectCustomExtensions(result.certificatePem, extensions);
    });

    it('refuses 11 entries with 400 on customExtensions', async () => {
      const problem = expectProblem(
        await issueV2(serverBody({ customExtensions: { ...ten, eleventh: 'x' } })),
        400,
        'VALIDATION_FAILED',
      );
      expect(problem.errors!.map((e) => e.field)).toContain('customExtensions');
    });

    it.each<[string, string]>([
      ['a key of 256 characters', JSON.stringify({ ['k'.repeat(256)]: 'v' })],
      ['a value of 256 characters', JSON.stringify({ team: 'v'.repeat(256) })],
      ['a __proto__ key', '{"__proto__": "polluted"}'],
      ['a __proto__ key among others', '{"team": "payments", "__proto__": {"isAdmin": true}}'],
      ['a numeric value', JSON.stringify({ team: 42 })],
      ['an array', JSON.stringify(['team', 'payments'])],
      ['a string', JSON.stringify('team=payments')],
    ])('refuses %s with 400 on customExtensions', async (_name, extensionsJson) => {
      const body = JSON.stringify(serverBody()).replace(/}$/, `,"customExtensions":${extensionsJson}}`);
      const problem = expectProblem(await issueV2(undefined, { raw: body }), 400, 'VALIDATION_FAILED');
      expect(problem.errors!.length).toBeGreaterThan(0);
      for (const error of problem.errors!) expect(error.field).toMatch(/^customExtensions(\.|$)/);
      // Nothing leaked onto objects of the process.
      expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
    });
  });

  describe('renewing (POST /v2/certificates/{id}/renew)', () => {
    const extensions = { team: 'payments', environment: 'production', owner: 'Zoë' };
    const body = serverBody({
      clientId: 'edge-renewal',
      commonName: 'edge.example.com',
      usage: 'ClientAndServer',
      subjectAlternativeNames: ['api.example.com', '*.example.com'],
      mustStaple: true,
      customExtensions: extensions,
    });
    let original: IssuedCertificate;
    let originalBefore: Detail;
    let answer: HttpAnswer;
    let renewed: RenewedCertificate;

    beforeAll(async () => {
      original = await issued(body);
      originalBefore = await getDetail(tenant, original.certificateId);
      answer = await tenant.post(`/v2/certificates/${original.certificateId}/renew`, { validityDays: 100 });
      renewed = answer.json<RenewedCertificate>();
    });

    it('answers 200 with exactly the renewal fields: a new id, serial and key', () => {
      expect(answer.status).toBe(200);
      expect(sorted(renewed)).toEqual(RENEW_FIELDS);
      expect(renewed.newCertificateId).not.toBe(original.certificateId);
      expect(renewed.serialNumber).not.toBe(original.serialNumber);
      expect(keyMatchesCertificate(renewed.privateKeyPem, renewed.certificatePem)).toBe(true);
      expect(keyMatchesCertificate(original.privateKeyPem, renewed.certificatePem)).toBe(false);
      const validFrom = Date.parse(new X509Certificate(renewed.certificatePem).validFrom);
      expect(Date.parse(renewed.expiresAt) - validFrom).toBe(100 * DAY_MS - 1000);
    });

    it('keeps the subject, usage, SANs, must-staple, clientId and custom extensions', async () => {
      const before = certificateInfo(original.certificatePem);
      const after = certificateInfo(renewed.certificatePem);
      expect(new X509Certificate(renewed.certificatePem).subject).toBe(
        new X509Certificate(original.certificatePem).subject,
      );
      expect(after.extendedKeyUsages).toEqual(before.extendedKeyUsages);
      expect([...after.extendedKeyUsages].sort()).toEqual(['clientAuth', 'serverAuth']);
      expect(after.dnsNames).toEqual(before.dnsNames);
      expect([...after.dnsNames].sort()).toEqual(['*.example.com', 'api.example.com', 'edge.example.com']);
      expect(after.mustStaple).toBe(true);
      expectCustomExtensions(renewed.certificatePem, extensions);
      expect(customExtensionsOf(renewed.certificatePem)).toEqual(customExtensionsOf(original.certificatePem));
      const detail = await getDetail(tenant, renewed.newCertificateId);
      expect(detail.clientId).toBe('edge-renewal');
      expect(detail.commonName).toBe('edge.example.com');
      expect(detail.status).toBe('Active');
    });

    it('leaves the original Active and unchanged', async () => {
      // Unchanged but for the successor it now names (its renewal).
      expect(await getDetail(tenant, original.certificateId)).toEqual({
        ...originalBefore,
        successorId: renewed.newCertificateId,
      });
    });

    it('refuses more than 825 days for a server certificate, and invalid bodies, with 400', async () => {
      const renew = (request: unknown) =>
        tenant.post(`/v2/certificates/${original.certificateId}/renew`, request);
      expectValidationProblem(await renew({ validityDays: 826 }), ['validityDays']);
      expectValidationProblem(await renew({ validityDays: 0 }), ['validityDays']);
      expectValidationProblem(await renew({ validityDays: 30, usage: 'Client' }), ['usage']);
      expectValidationProblem(await renew({ validityDays: 30, responseFormat: 'Zip' }), ['responseFormat']);
      expect((await renew({ validityDays: 825 })).status).toBe(200);
    });

    it('renews through v1 too, keeping usage, SANs and must-staple, and the 825-day rule', async () => {
      const renew = (request: unknown) =>
        tenant.post(`/v1/certificates/${original.certificateId}/renew`, request);
      expectValidationProblem(await renew({ validityDays: 826 }), ['validityDays']);
      const answer = await renew({ validityDays: 30 });
      expect(answer.status).toBe(200);
      const result = answer.json<RenewedCertificate>();
      const info = certificateInfo(result.certificatePem);
      expect([...info.extendedKeyUsages].sort()).toEqual(['clientAuth', 'serverAuth']);
      expect(info.dnsNames).toEqual(certificateInfo(original.certificatePem).dnsNames);
      expect(info.mustStaple).toBe(true);
      expect((await getDetail(tenant, result.newCertificateId)).clientId).toBe('edge-renewal');
    });

    it('answers malformed, unknown, foreign and revoked certificates with 400, 404, 403 and 409', async () => {
      const renew = (id: string, t = tenant) => t.post(`/v2/certificates/${id}/renew`, { validityDays: 30 });
      expectValidationProblem(await renew('not-a-uuid'), ['certificateId']);
      expectProblem(await renew(randomUUID()), 404, 'NOT_FOUND');
      const other = await createTenant(sut);
      expectProblem(await renew(original.certificateId, other), 403, 'FORBIDDEN');
      const doomed = await issued(serverBody());
      expect(
        (await tenant.post(`/v1/certificates/${doomed.certificateId}/revoke`, { reason: 'x' })).status,
      ).toBe(200);
      expectProblem(await renew(doomed.certificateId), 409, 'CONFLICT');
    });
  });

  describe('v2 certificates through the v1 read API', () => {
    let certificate: IssuedCertificate;
    beforeAll(async () => {
      certificate = await issued(
        serverBody({ mustStaple: true, customExtensions: { team: 'x' }, validityDays: 20 }),
      );
    });

    it('gets exactly the spec detail fields (no usage, SAN or extension fields)', async () => {
      const detail = await getDetail(tenant, certificate.certificateId);
      expect(sorted(detail)).toEqual(DETAIL_FIELDS);
      expect(detail).toEqual(
        expect.objectContaining({
          certificateId: certificate.certificateId,
          tenantId: tenant.tenantId,
          clientId: 'edge-proxy',
          commonName: 'edge-server',
          serialNumber: certificate.serialNumber,
          status: 'Active',
          expiresAt: certificate.expiresAt,
          daysUntilExpiration: 19,
        }),
      );
      expect(pemToDer(detail.certificatePem)).toEqual(pemToDer(certificate.certificatePem));
    });

    it('lists it with exactly the summary fields, and as expiring with exactly the expiring fields', async () => {
      const listed = (await tenant.get('/v1/certificates')).json<{ certificates: Summary[] }>().certificates;
      const summary = listed.find((c) => c.certificateId === certificate.certificateId)!;
      expect(sorted(summary)).toEqual(SUMMARY_FIELDS);
      for (const entry of listed) expect(sorted(entry)).toEqual(SUMMARY_FIELDS);
      const soon = (await tenant.get('/v1/certificates/expiring?days=30')).json<{
        certificates: Expiring[];
      }>().certificates;
      const entry = soon.find((c) => c.certificateId === certificate.certificateId)!;
      expect(sorted(entry)).toEqual(EXPIRING_FIELDS);
    });

    it('revokes it through v1', async () => {
      const answer = await tenant.post(`/v1/certificates/${certificate.certificateId}/revoke`, {
        reason: 'decommissioned',
        reasonCode: 'CessationOfOperation',
      });
      expect(answer.status).toBe(200);
      expect((await getDetail(tenant, certificate.certificateId)).status).toBe('Revoked');
    });
  });

  describe('TLS with Node', () => {
    let server: ReturnType<typeof createTlsServer>;
    let port: number;
    let clientCertificate: IssuedCertificate;

    beforeAll(async () => {
      const serverCertificate = await issued(
        serverBody({
          commonName: 'api-server',
          usage: 'Server',
          subjectAlternativeNames: ['api.example.com', '*.example.com'],
        }),
      );
      clientCertificate = await issued(serverBody({ usage: 'Client', subjectAlternativeNames: undefined }));
      server = createTlsServer(
        {
          cert: serverCertificate.certificatePem,
          key: serverCertificate.privateKeyPem,
          ca: tenant.caPem,
          requestCert: true,
          rejectUnauthorized: false,
        },
        (socket) => {
          socket.end(
            socket.authorized ? `hello ${socket.getPeerCertificate().subject?.CN}` : 'hello stranger',
          );
        },
      );
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as AddressInfo).port;
    });

    afterAll(async () => {
      await new Promise((resolve) => server?.close(resolve));
    });

    /** Connects, reads what the server says; rejects with the TLS error. */
    function talk(options: {
      servername: string;
      ca?: string;
      cert?: string;
      key?: string;
    }): Promise<string> {
      return new Promise((resolve, reject) => {
        const socket: TLSSocket = tlsConnect({
          host: '127.0.0.1',
          port,
          ca: options.ca ?? tenant.caPem,
          servername: options.servername,
          cert: options.cert,
          key: options.key,
        });
        let data = '';
        socket.setEncoding('utf8');
        socket.on('data', (chunk: string) => (data += chunk));
        socket.once('end', () => resolve(data));
        socket.once('error', reject);
      });
    }

    it.each(['api.example.com', 'x.example.com'])(
      'connects to %s trusting only the tenant CA',
      async (servername) => {
        expect(await talk({ servername })).toBe('hello stranger');
      },
    );

    it('refuses a host name outside the SANs', async () => {
      await expect(talk({ servername: 'other.test' })).rejects.toMatchObject({
        code: 'ERR_TLS_CERT_ALTNAME_INVALID',
      });
      // A wildcard covers one label only.
      await expect(talk({ servername: 'a.b.example.com' })).rejects.toMatchObject({
        code: 'ERR_TLS_CERT_ALTNAME_INVALID',
      });
    });

    it("refuses the server when trusting another tenant's CA", async () => {
      // The same CA name, another key: only the signature tells them apart.
      const stranger = await createTenant(sut, { commonName: 'V2 Test Root' });
      await expect(talk({ servername: 'api.example.com', ca: stranger.caPem })).rejects.toMatchObject({
        code: expect.stringMatching(
          /SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE|CERT_SIGNATURE_FAILURE|UNABLE_TO_GET_ISSUER/,
        ),
      });
    });

    it('authenticates a v2 Client certificate of the tenant in mutual TLS', async () => {
      expect(
        await talk({
          servername: 'api.example.com',
          cert: clientCertificate.certificatePem,
          key: clientCertificate.privateKeyPem,
        }),
      ).toBe('hello edge-server');
    });
  });

  describeIfOpenssl('as openssl reads a full v2 certificate', () => {
    const files = new TempFiles();
    afterAll(() => files.remove());

    it('verifies -x509_strict for TLS servers and clients and shows SANs, EKUs, TLS Feature and the custom extension', async () => {
      const result = await issued(
        serverBody({
          usage: 'ClientAndServer',
          subjectAlternativeNames: ['api.example.com', '*.example.com', 'xn--bcher-kva.example'],
          mustStaple: true,
          customExtensions: { team: 'payments' },
        }),
      );
      const text = runOpenssl(['x509', '-noout', '-text'], result.certificatePem);
      expect(text).toMatch(/Subject: C ?= ?US, O ?= ?Acme Corp, OU ?= ?Platform, CN ?= ?edge-server\n/);
      expect(text).toMatch(
        /X509v3 Subject Alternative Name: ?\n\s+DNS:api\.example\.com, DNS:\*\.example\.com, DNS:xn--bcher-kva\.example\n/,
      );
      expect(text).toMatch(/TLS Feature: ?\n\s+status_request\n/);
      expect(text).toMatch(/1\.3\.6\.1\.4\.1\.99999\.2\.\d+: ?\n\s+.*team.*payments/);
      const ca = files.write('v2-ca.pem', tenant.caPem);
      const leaf = files.write('v2-leaf.pem', result.certificatePem);
      for (const purpose of ['sslserver', 'sslclient']) {
        expect(runOpenssl(['verify', '-x509_strict', '-purpose', purpose, '-CAfile', ca, leaf]).trim()).toBe(
          `${leaf}: OK`,
        );
      }
    });
  });
});
