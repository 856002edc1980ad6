import 'reflect-metadata';
import { X509Certificate } from 'node:crypto';
import { derToPem, generateEcKeyPair } from '@ca/pki';
import { buildTestCsr } from '@ca/pki/testing';
import { TestTenant, adminRequest, createTenant, issueBody } from './support/admin-api';
import { HttpAnswer } from './support/http';
import { expectProblem, expectValidationProblem } from './support/problems';
import { SystemUnderTest, startSystemUnderTest, systemModes } from './support/system-under-test';

/**
 * The tenant issuance policy (docs/api.md#issuance-policy) over HTTP: PUT/GET/DELETE /v2/policy,
 * what it allows on issue and renew (v1 and v2; suffix boundaries, wildcards, host-name CNs), that
 * the allowed usages (also for a tenant whose root signs leaves: its leaves only), that a tenant's
 * policy binds that tenant only, and the validation of the policy itself.
 */
jest.setTimeout(60_000);

const modes = systemModes('issuance policy suite');
const NOT_ALLOWED = 'NAME_NOT_ALLOWED_BY_POLICY';

const serverBody = (names: string[], overrides: Record<string, unknown> = {}) =>
  issueBody({
    commonName: 'edge-server',
    usage: 'Server',
    subjectAlternativeNames: names,
    validityDays: 90,
    ...overrides,
  });

describe.each(modes)('issuance policy over HTTP (%s)', (mode) => {
  let sut: SystemUnderTest;

  beforeAll(async () => {
    sut = await startSystemUnderTest(mode);
  });

  afterAll(async () => {
    await sut?.stop();
  });

  const putPolicy = (tenant: TestTenant, body: unknown, bearer = tenant.bearer): Promise<HttpAnswer> =>
    adminRequest(sut, 'PUT', '/v2/policy', bearer, body);
  const deletePolicy = (tenant: TestTenant): Promise<HttpAnswer> =>
    adminRequest(sut, 'DELETE', '/v2/policy', tenant.bearer);
  const sansOf = (answer: HttpAnswer) =>
    new X509Certificate(answer.json<{ certificatePem: string }>().certificatePem).subjectAltName;

  async function tenantWithPolicy(suffixes: string[]): Promise<TestTenant> {
    const tenant = await createTenant(sut, { commonName: 'Policy Test Root' });
    const answer = await putPolicy(tenant, { allowedDnsSuffixes: suffixes });
    expect(answer.status).toBe(200);
    return tenant;
  }

  it('has no policy at first, and then any valid name is issued', async () => {
    const tenant = await createTenant(sut, { commonName: 'Policy Test Root' });
    const answer = await tenant.get('/v2/policy');
    expect(answer.status).toBe(200);
    expect(answer.json()).toEqual({ allowedDnsSuffixes: null, allowedUsages: null });
    expect((await tenant.post('/v2/certificates', serverBody(['anything.example.org']))).status).toBe(200);
  });

  it('stores suffixes lower-cased and once, and answers them on GET', async () => {
    const tenant = await createTenant(sut, { commonName: 'Policy Test Root' });
    const put = await putPolicy(tenant, { allowedDnsSuffixes: ['Example.COM', 'corp', 'example.com'] });
    expect(put.status).toBe(200);
    expect(put.json()).toEqual({
      allowedDnsSuffixes: ['example.com', 'corp'],
      allowedUsages: ['Client', 'Server'],
    });
    expect((await tenant.get('/v2/policy')).json()).toEqual({
      allowedDnsSuffixes: ['example.com', 'corp'],
      allowedUsages: ['Client', 'Server'],
    });
  });

  it('issues names equal to or under an allowed suffix, wildcards included', async () => {
    const tenant = await tenantWithPolicy(['example.com']);
    const answer = await tenant.post(
      '/v2/certificates',
      serverBody(['example.com', 'api.example.com', '*.example.com', 'A.B.Example.com']),
    );
    expect(answer.status).toBe(200);
    expect(sansOf(answer)).toBe(
      'DNS:example.com, DNS:api.example.com, DNS:*.example.com, DNS:a.b.example.com',
    );
  });

  it('refuses a name that only ends with the suffix text (badexample.com), naming it', async () => {
    const tenant = await tenantWithPolicy(['example.com']);
    const answer = await tenant.post(
      '/v2/certificates',
      serverBody(['api.example.com', 'badexample.com', 'example.com.evil.test']),
    );
    const problem = expectProblem(answer, 400, NOT_ALLOWED, 'ca-manager/name-not-allowed-by-policy');
    expect(problem.detail).toContain('"badexample.com"');
    expect(problem.detail).toContain('"example.com.evil.test"');
    expect(problem.detail).not.toContain('"api.example.com"');
    expect(problem.errors).toEqual([
      { field: 'subjectAlternativeNames', message: expect.stringContaining('"badexample.com"') },
      { field: 'subjectAlternativeNames', message: expect.stringContaining('"example.com.evil.test"') },
    ]);
    expect((await tenant.get('/v1/certificates')).json()).toEqual({ certificates: [] });
  });

  it('checks a common name written like a host name, in v1 and v2, and leaves other names alone', async () => {
    const tenant = await tenantWithPolicy(['example.com']);
    const v1 = await tenant.post('/v1/certificates', issueBody({ commonName: 'client.other.test' }));
    expect(expectProblem(v1, 400, NOT_ALLOWED).errors).toEqual([
      { field: 'commonName', message: expect.stringContaining('"client.other.test"') },
    ]);
    const v2 = await tenant.post('/v2/certificates', issueBody({ commonName: 'client.other.test' }));
    expectProblem(v2, 400, NOT_ALLOWED);
    // A server certificate's host-name CN becomes a SAN, and is refused as such.
    const server = await tenant.post(
      '/v2/certificates',
      serverBody(['api.example.com'], { commonName: 'www.other.test' }),
    );
    expect(expectProblem(server, 400, NOT_ALLOWED).detail).toContain('"www.other.test"');
    expect((await tenant.post('/v1/certificates', issueBody({ commonName: 'payments-client' }))).status).toBe(
      200,
    );
    expect(
      (await tenant.post('/v1/certificates', issueBody({ commonName: 'client.example.com' }))).status,
    ).toBe(200);
  });

  it('holds on renewal: a certificate issued before the policy is not renewed outside it', async () => {
    const tenant = await createTenant(sut, { commonName: 'Policy Test Root' });
    const v2 = await tenant.issue(serverBody(['api.other.test']), '/v2/certificates');
    const v1 = await tenant.issue(issueBody({ commonName: 'client.other.test' }));
    const kept = await tenant.issue(serverBody(['api.example.com']), '/v2/certificates');
    expect((await putPolicy(tenant, { allowedDnsSuffixes: ['example.com'] })).status).toBe(200);

    const renewV2 = await tenant.post(`/v2/certificates/${v2.certificateId}/renew`, { validityDays: 30 });
    expect(expectProblem(renewV2, 400, NOT_ALLOWED).detail).toContain('"api.other.test"');
    const renewV1 = await tenant.post(`/v1/certificates/${v1.certificateId}/renew`, { validityDays: 30 });
    expect(expectProblem(renewV1, 400, NOT_ALLOWED).detail).toContain('"client.other.test"');
    const allowed = await tenant.post(`/v2/certificates/${kept.certificateId}/renew`, { validityDays: 30 });
    expect(allowed.status).toBe(200);
  });

  it('allows no DNS name with an empty list, and any name again once deleted', async () => {
    const tenant = await tenantWithPolicy([]);
    expectProblem(await tenant.post('/v2/certificates', serverBody(['api.example.com'])), 400, NOT_ALLOWED);
    // A client certificate without a host name carries no DNS name: still issued.
    expect((await tenant.post('/v1/certificates', issueBody())).status).toBe(200);

    const removed = await deletePolicy(tenant);
    expect(removed.status).toBe(200);
    expect(removed.json()).toEqual({ allowedDnsSuffixes: null, allowedUsages: null });
    expect((await tenant.get('/v2/policy')).json()).toEqual({
      allowedDnsSuffixes: null,
      allowedUsages: null,
    });
    expect((await tenant.post('/v2/certificates', serverBody(['api.example.com']))).status).toBe(200);
    expect((await deletePolicy(tenant)).status).toBe(200);
  });

  it("binds only its own tenant: B cannot get A's names, A's policy does not limit B", async () => {
    const tenantA = await tenantWithPolicy(['a.example']);
    const tenantB = await tenantWithPolicy(['b.example']);
    const other = await createTenant(sut, { commonName: 'Policy Test Root' });

    expectProblem(await tenantB.post('/v2/certificates', serverBody(['api.a.example'])), 400, NOT_ALLOWED);
    expect((await tenantA.post('/v2/certificates', serverBody(['api.a.example']))).status).toBe(200);
    expect((await other.post('/v2/certificates', serverBody(['api.a.example']))).status).toBe(200);
    expect((await tenantA.get('/v2/policy')).json()).toEqual({
      allowedDnsSuffixes: ['a.example'],
      allowedUsages: ['Client', 'Server'],
    });
    expect((await tenantB.get('/v2/policy')).json()).toEqual({
      allowedDnsSuffixes: ['b.example'],
      allowedUsages: ['Client', 'Server'],
    });
    expect((await other.get('/v2/policy')).json()).toEqual({ allowedDnsSuffixes: null, allowedUsages: null });
  });

  it('refuses suffixes that are not DNS names, with one error per entry, and keeps the old policy', async () => {
    const tenant = await tenantWithPolicy(['example.com']);
    const answer = await putPolicy(tenant, {
      allowedDnsSuffixes: ['ok.example', '*.example.com', '10.0.0.1', 'bad..name', 'bücher.example'],
    });
    expectValidationProblem(answer, [
      'allowedDnsSuffixes[1]',
      'allowedDnsSuffixes[2]',
      'allowedDnsSuffixes[3]',
      'allowedDnsSuffixes[4]',
    ]);
    const tooMany = Array.from({ length: 101 }, (_, i) => `s${i}.example`);
    expectValidationProblem(await putPolicy(tenant, { allowedDnsSuffixes: tooMany }), ['allowedDnsSuffixes']);
    expectValidationProblem(await putPolicy(tenant, {}), ['allowedDnsSuffixes']);
    expectValidationProblem(await putPolicy(tenant, { allowedDnsSuffixes: null }), ['allowedDnsSuffixes']);
    expectValidationProblem(await putPolicy(tenant, { allowedDnsSuffixes: 'example.com' }), [
      'allowedDnsSuffixes',
    ]);
    expect((await tenant.get('/v2/policy')).json()).toEqual({
      allowedDnsSuffixes: ['example.com'],
      allowedUsages: ['Client', 'Server'],
    });
  });

  it('issues only the allowed usages, v1 (Client), v2, CSR issuance and renewal alike', async () => {
    const tenant = await createTenant(sut, { commonName: 'Policy Test Root' });
    const client = await tenant.issue(issueBody());
    const put = await putPolicy(tenant, { allowedDnsSuffixes: ['example.com'], allowedUsages: ['Server'] });
    expect(put.json()).toEqual({ allowedDnsSuffixes: ['example.com'], allowedUsages: ['Server'] });
    const csrPem = derToPem(
      await buildTestCsr(await generateEcKeyPair(false), 'edge'),
      'CERTIFICATE REQUEST',
    );
    for (const [path, body] of [
      ['/v1/certificates', issueBody()],
      ['/v2/certificates', issueBody({ usage: 'Client' })],
      ['/v2/certificates', serverBody(['api.example.com'], { usage: 'ClientAndServer' })],
      ['/v2/certificates', serverBody(['api.example.com'], { usage: 'Client', csrPem })],
      [`/v1/certificates/${client.certificateId}/renew`, { validityDays: 30 }],
      [`/v2/certificates/${client.certificateId}/renew`, { validityDays: 30, csrPem }],
    ] as const) {
      const problem = expectProblem(await tenant.post(path, body), 400, 'USAGE_NOT_ALLOWED_BY_POLICY');
      expect(problem).toMatchObject({ errors: [{ field: 'usage' }] });
    }
    expect(
      (await tenant.get('/v1/certificates')).json<{ certificates: unknown[] }>().certificates,
    ).toHaveLength(1);
    const server = await tenant.post('/v2/certificates', serverBody(['api.example.com'], { csrPem }));
    expect(server.status).toBe(200);
    expect(new X509Certificate(server.json<{ certificatePem: string }>().certificatePem).keyUsage).toEqual([
      '1.3.6.1.5.5.7.3.1',
    ]);

    // Both once the field is left out again: the v1 client certificate renews.
    await putPolicy(tenant, { allowedDnsSuffixes: ['example.com'] });
    expect(
      (await tenant.post(`/v1/certificates/${client.certificateId}/renew`, { validityDays: 30 })).status,
    ).toBe(200);
  });

  it('needs the ca:admin scope', async () => {
    const tenant = await createTenant(sut, { commonName: 'Policy Test Root' });
    const writer = await tenant.tokenWithScope('certificates:write certificates:read');
    expectProblem(await putPolicy(tenant, { allowedDnsSuffixes: ['example.com'] }, writer), 403, 'FORBIDDEN');
    expectProblem(await tenant.get('/v2/policy', { bearer: writer }), 403, 'FORBIDDEN');
    expectProblem(await adminRequest(sut, 'DELETE', '/v2/policy', writer), 403, 'FORBIDDEN');
    expect((await tenant.get('/v2/policy')).json()).toEqual({
      allowedDnsSuffixes: null,
      allowedUsages: null,
    });
  });
});
