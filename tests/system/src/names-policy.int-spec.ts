import 'reflect-metadata';
import { X509Certificate } from 'node:crypto';
import { TestTenant, createTenant, issueBody } from './support/admin-api';
import { certificateInfo } from './support/pki';
import { expectValidationProblem } from './support/problems';
import { SystemUnderTest, startSystemUnderTest, systemModes } from './support/system-under-test';

/**
 * The names policy and stable custom-extension OIDs through the admin API (docs/certificate-profile.md):
 * subject fields without control characters or edge spaces and counted in characters, assigned
 * ISO 3166 country codes, valid A-labels, no wildcard under a public suffix, a server's host-name
 * CN lower-cased and one of its SANs, and one OID per custom-extension key and tenant.
 */
jest.setTimeout(60_000);

const modes = systemModes('names policy suite');
const CUSTOM_ARC = '1.3.6.1.4.1.99999.2';

const serverBody = (overrides: Record<string, unknown> = {}) =>
  issueBody({
    usage: 'Server',
    subjectAlternativeNames: ['api.example.com'],
    validityDays: 90,
    ...overrides,
  });

/** key → OID of the custom extensions of a certificate. */
function customOids(pem: string): Record<string, string> {
  return Object.fromEntries(certificateInfo(pem).customExtensions.map(({ oid, key }) => [key, oid]));
}

describe.each(modes)('names policy over HTTP (%s)', (mode) => {
  let sut: SystemUnderTest;
  let tenant: TestTenant;

  beforeAll(async () => {
    sut = await startSystemUnderTest(mode);
    tenant = await createTenant(sut, { commonName: 'Names Test Root' });
  });

  afterAll(async () => {
    await sut?.stop();
  });

  describe('custom extension OIDs', () => {
    it('gives a key the same OID in every certificate and renewal of a tenant', async () => {
      const first = await tenant.post('/v2/certificates', serverBody({ customExtensions: { b: 'one' } }));
      expect(first.status).toBe(200);
      const second = await tenant.post(
        '/v2/certificates',
        serverBody({ customExtensions: { a: 'x', b: 'two' } }),
      );
      expect(second.status).toBe(200);
      const firstOids = customOids(first.json<{ certificatePem: string }>().certificatePem);
      const secondOids = customOids(second.json<{ certificatePem: string }>().certificatePem);
      expect(firstOids.b).toMatch(new RegExp(`^${CUSTOM_ARC.replace(/\./g, '\\.')}\\.\\d+$`));
      expect(secondOids.b).toBe(firstOids.b);
      expect(secondOids.a).not.toBe(secondOids.b);

      const { certificateId } = first.json<{ certificateId: string }>();
      const renewed = await tenant.post(`/v2/certificates/${certificateId}/renew`, { validityDays: 30 });
      expect(renewed.status).toBe(200);
      expect(customOids(renewed.json<{ certificatePem: string }>().certificatePem)).toEqual({
        b: firstOids.b,
      });
    });

    it('numbers each tenant on its own', async () => {
      const other = await createTenant(sut, { commonName: 'Names Other Root' });
      const answer = await other.post(
        '/v2/certificates',
        serverBody({ customExtensions: { z: '1', y: '2' } }),
      );
      expect(answer.status).toBe(200);
      expect(customOids(answer.json<{ certificatePem: string }>().certificatePem)).toEqual({
        y: `${CUSTOM_ARC}.1`,
        z: `${CUSTOM_ARC}.2`,
      });
    });
  });

  describe('host names', () => {
    it('lower-cases a server host-name CN and its SANs, so the CN is one SAN byte for byte', async () => {
      const answer = await tenant.post(
        '/v2/certificates',
        serverBody({
          commonName: 'API.Example.COM',
          subjectAlternativeNames: ['Api.Example.com', 'WWW.example.com'],
        }),
      );
      expect(answer.status).toBe(200);
      const certificate = new X509Certificate(answer.json<{ certificatePem: string }>().certificatePem);
      expect(certificate.subject).toContain('CN=api.example.com');
      expect(certificate.subjectAltName).toBe('DNS:api.example.com, DNS:www.example.com');
    });

    it.each<[string, Record<string, unknown>, string]>([
      [
        'a wildcard under a public suffix',
        { subjectAlternativeNames: ['*.co.uk'] },
        'subjectAlternativeNames[0]',
      ],
      [
        'a wildcard under a private public suffix',
        { subjectAlternativeNames: ['*.github.io'] },
        'subjectAlternativeNames[0]',
      ],
      [
        'an invalid A-label',
        { subjectAlternativeNames: ['api.example.com', 'xn--zz.example'] },
        'subjectAlternativeNames[1]',
      ],
      ['a host-name CN with an invalid A-label', { commonName: 'xn--zz.example' }, 'commonName'],
      [
        'a host-name CN that cannot join 50 SANs',
        {
          commonName: 'extra.example.com',
          subjectAlternativeNames: Array.from({ length: 50 }, (_, i) => `h${i}.example.com`),
        },
        'commonName',
      ],
    ])('refuses %s with 400 naming the field', async (_name, overrides, field) => {
      expectValidationProblem(await tenant.post('/v2/certificates', serverBody(overrides)), [field]);
    });
  });

  describe('subject fields', () => {
    it.each<[string, Record<string, unknown>, string]>([
      ['a BEL in the CN', { commonName: 'pay\u0007ments' }, 'commonName'],
      ['a NUL in the organization', { organization: 'Acme\u0000' }, 'organization'],
      ['a C1 control in the OU', { organizationalUnit: 'Pay\u0085ments' }, 'organizationalUnit'],
      ['a leading space', { organization: ' Acme' }, 'organization'],
      ['a trailing space', { commonName: 'payments ' }, 'commonName'],
      ['65 characters of 2 UTF-16 units', { commonName: '😀'.repeat(65) }, 'commonName'],
      ['country UK', { country: 'UK' }, 'country'],
      ['country XX', { country: 'XX' }, 'country'],
    ])('refuses %s with 400 naming the field', async (_name, overrides, field) => {
      expectValidationProblem(await tenant.post('/v1/certificates', issueBody(overrides)), [field]);
    });

    it('accepts 64 characters of 2 UTF-16 units each', async () => {
      const answer = await tenant.post('/v1/certificates', issueBody({ commonName: '😀'.repeat(64) }));
      expect(answer.status).toBe(200);
    });

    it('refuses a CA subject with a control character or an unassigned country', async () => {
      const fresh = await createTenant(sut, { ca: false });
      const body = { commonName: 'Root', organization: 'Acme', country: 'US', validityYears: 5 };
      expectValidationProblem(await fresh.post('/v1/ca/initialize', { ...body, country: 'XX' }), ['country']);
      expectValidationProblem(await fresh.post('/v1/ca/initialize', { ...body, commonName: 'Ro\u0007ot' }), [
        'commonName',
      ]);
    });
  });
});
