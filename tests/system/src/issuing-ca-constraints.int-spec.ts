import 'reflect-metadata';
import { X509Certificate } from 'node:crypto';
import { connect, createServer } from 'node:tls';
import { pemToDer, readNameConstraints } from '@ca/pki';
import { IssuedCertificate, TestTenant, adminRequest, createTenant, issueBody } from './support/admin-api';
import { HttpAnswer } from './support/http';
import { TempFiles, opensslAsync } from './support/pki';
import { describeIfPrograms } from './support/programs';
import { SystemUnderTest, startSystemUnderTest, systemModes } from './support/system-under-test';

/**
 * docs/api.md#issuance-policy and #certificate-profile: a tenant's issuing CA carries the policy as
 * critical name constraints and its allowed usages as EKU; its leaves verify with openssl and
 * Node's TLS; a policy change rolls the issuing CA over in the same request, the old one retired
 * and its leaves still valid; a root-only tenant's policy binds leaves only.
 */
jest.setTimeout(120_000);

type Issued = IssuedCertificate & { chainPem: string };
interface PolicyAnswer {
  allowedDnsSuffixes: string[] | null;
  allowedUsages: string[] | null;
  issuingCaId?: string;
  retiredIssuingCaId?: string;
}
interface CaRow {
  caId: string;
  role: string;
  state: string;
  certificatePem: string;
}
const EVERY_IP = ['0.0.0.0/0', '::/0'];

describeIfPrograms(['openssl'], 'issuing CA name constraints', () => {
  describe.each(systemModes('issuing CA constraints suite'))('(%s)', (mode) => {
    let sut: SystemUnderTest;
    const files = new TempFiles();
    let written = 0;
    const file = (name: string, content: string) => files.write(`${written++}-${name}`, content);

    beforeAll(async () => {
      sut = await startSystemUnderTest(mode);
    });

    afterAll(async () => {
      await sut?.stop();
      files.remove();
    });

    const putPolicy = (tenant: TestTenant, body: unknown): Promise<HttpAnswer> =>
      adminRequest(sut, 'PUT', '/v2/policy', tenant.bearer, body);
    const cas = async (tenant: TestTenant) => (await tenant.get('/v2/ca')).json<{ cas: CaRow[] }>().cas;
    const activeIssuing = async (tenant: TestTenant) =>
      (await cas(tenant)).find(({ role, state }) => role === 'issuing' && state === 'active')!;
    const constraintsOf = (pem: string) => readNameConstraints(pemToDer(pem));
    const server = (names: string[]) =>
      issueBody({ commonName: names[0], usage: 'Server', subjectAlternativeNames: names, validityDays: 30 });
    const client = (commonName: string) => issueBody({ commonName, usage: 'Client', validityDays: 30 });
    const issue = (tenant: TestTenant, body: Record<string, unknown>) =>
      tenant.issue(body, '/v2/certificates') as Promise<Issued>;
    const verify = async (rootPem: string, issuingPem: string, leaf: Issued, purpose: string) => {
      const { status, stdout, stderr } = await opensslAsync([
        'verify',
        '-x509_strict',
        '-purpose',
        purpose,
        '-CAfile',
        file('root.pem', rootPem),
        '-untrusted',
        file('issuing.pem', issuingPem),
        file('leaf.pem', leaf.certificatePem),
      ]);
      return { status, output: `${stdout}${stderr}` };
    };

    async function v2Tenant(suffixes: string[] | null) {
      const tenant = await createTenant(sut, { ca: false });
      if (suffixes) {
        const put = await putPolicy(tenant, { allowedDnsSuffixes: suffixes });
        // No CA yet: nothing to roll over.
        expect(put.json()).toEqual({ allowedDnsSuffixes: suffixes, allowedUsages: ['Client', 'Server'] });
      }
      const init = await tenant.post('/v2/ca/initialize', {
        commonName: 'Constrained Root',
        organization: 'Acme Corp',
        country: 'US',
        validityYears: 5,
      });
      expect(init.status).toBe(200);
      const { certificatePem: rootPem, issuingCa } = init.json<{
        certificatePem: string;
        issuingCa: { caId: string; certificatePem: string };
      }>();
      return { tenant, rootPem, issuingCa };
    }

    it('initializes an issuing CA that carries the policy as critical name constraints and EKU', async () => {
      const { tenant, rootPem, issuingCa } = await v2Tenant(['example.com', 'corp.example.net']);
      expect(constraintsOf(issuingCa.certificatePem)).toEqual({
        critical: true,
        permittedDnsNames: ['example.com', 'corp.example.net'],
        excludedDnsNames: [],
        excludedIpRanges: EVERY_IP,
      });
      const text = (
        await opensslAsync(['x509', '-noout', '-text', '-in', file('ca.pem', issuingCa.certificatePem)])
      ).stdout;
      expect(text).toContain('X509v3 Name Constraints: critical');
      expect(text).toMatch(/Permitted:\s+DNS:example\.com\s+DNS:corp\.example\.net\s+Excluded:/);
      expect(text).toMatch(
        /Extended Key Usage: \n\s+TLS Web Server Authentication, TLS Web Client Authentication/,
      );
      expect(text).toMatch(/CA:TRUE, pathlen:0/);

      // Leaves inside the policy verify strictly, as servers and as clients, CN-only clients too.
      const web = await issue(tenant, server(['api.example.com', '*.example.com']));
      const device = await issue(tenant, client('device.corp.example.net'));
      const plain = await issue(tenant, client('payments-client'));
      expect(await verify(rootPem, issuingCa.certificatePem, web, 'sslserver')).toMatchObject({ status: 0 });
      for (const leaf of [device, plain]) {
        expect(await verify(rootPem, issuingCa.certificatePem, leaf, 'sslclient')).toMatchObject({
          status: 0,
        });
      }

      // A CN openssl would read as a DNS name, outside the constraints: refused before signing.
      const refused = await tenant.post('/v2/certificates', client('10.0.0.1'));
      expect(refused.status).toBe(400);
      expect(refused.json<{ code: string; errors: { field: string }[] }>()).toMatchObject({
        code: 'NAME_NOT_ALLOWED_BY_POLICY',
        errors: [{ field: 'commonName' }],
      });

      // Node's TLS (openssl underneath) accepts the chain both ways with the root as only anchor.
      const both = await issue(tenant, { ...server(['mtls.example.com']), usage: 'ClientAndServer' });
      const tlsServer = createServer(
        {
          cert: web.certificatePem + web.chainPem,
          key: web.privateKeyPem,
          ca: rootPem,
          requestCert: true,
          rejectUnauthorized: true,
        },
        (socket) => socket.end(`hello ${socket.getPeerCertificate().subject.CN}`),
      );
      await new Promise<void>((resolve) => tlsServer.listen(0, '127.0.0.1', resolve));
      try {
        const port = (tlsServer.address() as { port: number }).port;
        const said = await new Promise<string>((resolve, reject) => {
          const socket = connect({
            host: '127.0.0.1',
            port,
            servername: 'api.example.com',
            ca: rootPem,
            cert: both.certificatePem + both.chainPem,
            key: both.privateKeyPem,
          });
          let answer = '';
          socket.setEncoding('utf8').on('data', (chunk: string) => (answer += chunk));
          socket.once('end', () => resolve(answer));
          socket.once('error', reject);
        });
        expect(said).toBe('hello mtls.example.com');
      } finally {
        await new Promise((resolve) => tlsServer.close(resolve));
      }

      // OCSP answers signed by the delegated signer under the constrained CA verify too.
      const ocsp = await opensslAsync([
        'ocsp',
        '-issuer',
        file('ocsp-issuer.pem', issuingCa.certificatePem),
        '-cert',
        file('ocsp-leaf.pem', web.certificatePem),
        '-url',
        `${sut.pkiUrl}/v1/tenants/${tenant.tenantId}/ocsp`,
        '-CAfile',
        file('ocsp-root.pem', rootPem),
        '-verify_other',
        file('ocsp-other.pem', issuingCa.certificatePem),
      ]);
      expect(`${ocsp.stdout}${ocsp.stderr}`).toMatch(/: good/);
      expect(ocsp.stderr).toMatch(/Response verify OK/);
    });

    it('rolls the issuing CA over when the policy changes; old leaves keep their chain', async () => {
      const { tenant, rootPem, issuingCa } = await v2Tenant(['example.com']);
      const old = await issue(tenant, server(['api.example.com']));

      const put = await putPolicy(tenant, { allowedDnsSuffixes: ['example.org'] });
      expect(put.status).toBe(200);
      const changed = put.json<PolicyAnswer>();
      expect(changed).toEqual({
        allowedDnsSuffixes: ['example.org'],
        allowedUsages: ['Client', 'Server'],
        issuingCaId: expect.any(String),
        retiredIssuingCaId: issuingCa.caId,
      });
      const rows = await cas(tenant);
      expect(rows.map(({ caId, role, state }) => ({ caId, role, state }))).toEqual([
        { caId: expect.any(String), role: 'root', state: 'active' },
        { caId: issuingCa.caId, role: 'issuing', state: 'retired' },
        { caId: changed.issuingCaId, role: 'issuing', state: 'active' },
      ]);
      const newCa = rows[2];
      expect(constraintsOf(newCa.certificatePem)).toMatchObject({ permittedDnsNames: ['example.org'] });
      // The old CA is not edited: it keeps its constraints, and its leaf still verifies with it.
      expect(constraintsOf(issuingCa.certificatePem)).toMatchObject({ permittedDnsNames: ['example.com'] });
      expect(await verify(rootPem, issuingCa.certificatePem, old, 'sslserver')).toMatchObject({ status: 0 });

      const fresh = await issue(tenant, server(['api.example.org']));
      expect(new X509Certificate(fresh.certificatePem).issuer).toBe(
        new X509Certificate(newCa.certificatePem).subject,
      );
      expect(fresh.chainPem.trim()).toBe(newCa.certificatePem.trim());
      expect(await verify(rootPem, newCa.certificatePem, fresh, 'sslserver')).toMatchObject({ status: 0 });
      // The old leaf does not chain to the new CA (other key), and the old names are refused now.
      expect((await verify(rootPem, newCa.certificatePem, old, 'sslserver')).status).not.toBe(0);
      expect((await tenant.post('/v2/certificates', server(['api.example.com']))).status).toBe(400);

      // The same policy again: the CA already carries it, nothing new.
      const again = await putPolicy(tenant, { allowedDnsSuffixes: ['EXAMPLE.org'] });
      expect(again.json()).toEqual({
        allowedDnsSuffixes: ['example.org'],
        allowedUsages: ['Client', 'Server'],
      });
      expect(await cas(tenant)).toHaveLength(3);

      // An empty list: no DNS name at all, a zero-length excluded dNSName; CN-only clients still work.
      const none = (await putPolicy(tenant, { allowedDnsSuffixes: [] })).json<PolicyAnswer>();
      expect(none.retiredIssuingCaId).toBe(changed.issuingCaId);
      const noneCa = await activeIssuing(tenant);
      expect(noneCa.caId).toBe(none.issuingCaId);
      expect(constraintsOf(noneCa.certificatePem)).toEqual({
        critical: true,
        permittedDnsNames: [],
        excludedDnsNames: [''],
        excludedIpRanges: EVERY_IP,
      });
      const anonymous = await issue(tenant, client('payments-client'));
      expect(await verify(rootPem, noneCa.certificatePem, anonymous, 'sslclient')).toMatchObject({
        status: 0,
      });

      // Removing the policy: a CA without name constraints (still with its EKU).
      const removed = await adminRequest(sut, 'DELETE', '/v2/policy', tenant.bearer);
      expect(removed.json<PolicyAnswer>()).toMatchObject({
        allowedDnsSuffixes: null,
        allowedUsages: null,
        issuingCaId: expect.any(String),
        retiredIssuingCaId: none.issuingCaId,
      });
      const free = await activeIssuing(tenant);
      expect(constraintsOf(free.certificatePem)).toBeNull();
      const anyName = await issue(tenant, server(['anything.example.net']));
      expect(await verify(rootPem, free.certificatePem, anyName, 'sslserver')).toMatchObject({ status: 0 });
      expect((await cas(tenant)).map(({ state }) => state)).toEqual([
        'active',
        'retired',
        'retired',
        'retired',
        'active',
      ]);
    });

    it('writes the allowed usages as the issuing CA EKU and refuses leaves of another usage', async () => {
      const { tenant, rootPem, issuingCa } = await v2Tenant(['example.com']);
      const ekuOf = async (pem: string) => {
        const { stdout } = await opensslAsync(['x509', '-noout', '-text', '-in', file('eku.pem', pem)]);
        return /Extended Key Usage: \n\s+(.*)\n/.exec(stdout)?.[1].trim();
      };
      const refusal = (answer: HttpAnswer) => {
        expect(answer.status).toBe(400);
        return answer.json<{ code: string; errors: { field: string }[] }>();
      };
      const certificateCount = async () =>
        (await tenant.get('/v1/certificates')).json<{ certificates: unknown[] }>().certificates.length;

      // Client only (a duplicate is fine): a new issuing CA whose EKU is clientAuth alone.
      const put = await putPolicy(tenant, {
        allowedDnsSuffixes: ['example.com'],
        allowedUsages: ['Client', 'Client'],
      });
      expect(put.status).toBe(200);
      const clientOnly = put.json<PolicyAnswer>();
      expect(clientOnly).toEqual({
        allowedDnsSuffixes: ['example.com'],
        allowedUsages: ['Client'],
        issuingCaId: expect.any(String),
        retiredIssuingCaId: issuingCa.caId,
      });
      expect((await tenant.get('/v2/policy')).json()).toEqual({
        allowedDnsSuffixes: ['example.com'],
        allowedUsages: ['Client'],
      });
      const clientCa = await activeIssuing(tenant);
      expect(clientCa.caId).toBe(clientOnly.issuingCaId);
      expect(await ekuOf(clientCa.certificatePem)).toBe('TLS Web Client Authentication');
      expect(constraintsOf(clientCa.certificatePem)).toMatchObject({ permittedDnsNames: ['example.com'] });

      // Client leaves (v2 and v1, whose leaves are Client) issue and verify as TLS clients.
      const device = await issue(tenant, client('device.example.com'));
      expect(await verify(rootPem, clientCa.certificatePem, device, 'sslclient')).toMatchObject({
        status: 0,
      });
      const v1 = await tenant.issue(issueBody({ validityDays: 30 }));
      expect(new X509Certificate(v1.certificatePem).issuer).toBe(
        new X509Certificate(clientCa.certificatePem).subject,
      );

      // Server and ClientAndServer: refused before signing, nothing stored.
      const before = await certificateCount();
      for (const usage of ['Server', 'ClientAndServer']) {
        expect(
          refusal(await tenant.post('/v2/certificates', { ...server(['api.example.com']), usage })),
        ).toMatchObject({
          code: 'USAGE_NOT_ALLOWED_BY_POLICY',
          errors: [{ field: 'usage' }],
        });
      }
      expect(await certificateCount()).toEqual(before);

      // Unknown or no usages: 400 VALIDATION_FAILED, the policy and CA left as they were.
      for (const allowedUsages of [[], ['Admin'], 'Client']) {
        const problem = refusal(
          await putPolicy(tenant, { allowedDnsSuffixes: ['example.com'], allowedUsages }),
        );
        expect(problem.code).toBe('VALIDATION_FAILED');
        expect(new Set(problem.errors.map(({ field }) => field))).toEqual(new Set(['allowedUsages']));
      }
      expect((await activeIssuing(tenant)).caId).toBe(clientCa.caId);

      // Server only: the v1 rule (Client) and a renewal of a Client leaf are refused too.
      const serverOnly = (
        await putPolicy(tenant, { allowedDnsSuffixes: ['example.com'], allowedUsages: ['Server'] })
      ).json<PolicyAnswer>();
      expect(serverOnly).toMatchObject({ allowedUsages: ['Server'], retiredIssuingCaId: clientCa.caId });
      expect(await ekuOf((await activeIssuing(tenant)).certificatePem)).toBe('TLS Web Server Authentication');
      expect(refusal(await tenant.post('/v1/certificates', issueBody({ validityDays: 30 }))).code).toBe(
        'USAGE_NOT_ALLOWED_BY_POLICY',
      );
      expect(
        refusal(await tenant.post(`/v2/certificates/${device.certificateId}/renew`, { validityDays: 30 }))
          .code,
      ).toBe('USAGE_NOT_ALLOWED_BY_POLICY');

      // A PUT without the field means both again: another rollover, EKU serverAuth and clientAuth.
      const back = (await putPolicy(tenant, { allowedDnsSuffixes: ['example.com'] })).json<PolicyAnswer>();
      expect(back).toMatchObject({
        allowedUsages: ['Client', 'Server'],
        retiredIssuingCaId: serverOnly.issuingCaId,
      });
      const bothCa = await activeIssuing(tenant);
      expect(await ekuOf(bothCa.certificatePem)).toBe(
        'TLS Web Server Authentication, TLS Web Client Authentication',
      );
      const web = await issue(tenant, server(['api.example.com']));
      expect(await verify(rootPem, bothCa.certificatePem, web, 'sslserver')).toMatchObject({ status: 0 });

      // Client only again, then DELETE: a CA with both purposes and no name constraints.
      await putPolicy(tenant, { allowedDnsSuffixes: ['example.com'], allowedUsages: ['Client'] });
      const removed = (await adminRequest(sut, 'DELETE', '/v2/policy', tenant.bearer)).json<PolicyAnswer>();
      expect(removed).toMatchObject({
        allowedDnsSuffixes: null,
        allowedUsages: null,
        issuingCaId: expect.any(String),
      });
      const free = await activeIssuing(tenant);
      expect(await ekuOf(free.certificatePem)).toBe(
        'TLS Web Server Authentication, TLS Web Client Authentication',
      );
      expect(constraintsOf(free.certificatePem)).toBeNull();
      const anyServer = await issue(tenant, { ...server(['api.example.net']), usage: 'ClientAndServer' });
      expect(await verify(rootPem, free.certificatePem, anyServer, 'sslserver')).toMatchObject({ status: 0 });
    });

    it('changes nothing on a refused policy: no new CA, the old policy kept', async () => {
      const { tenant, issuingCa } = await v2Tenant(['example.com']);
      const bad = await putPolicy(tenant, { allowedDnsSuffixes: ['example.org', '*.example.net'] });
      expect(bad.status).toBe(400);
      expect((await tenant.get('/v2/policy')).json()).toEqual({
        allowedDnsSuffixes: ['example.com'],
        allowedUsages: ['Client', 'Server'],
      });
      expect((await activeIssuing(tenant)).caId).toBe(issuingCa.caId);
      expect(await cas(tenant)).toHaveLength(2);
    });

    it('binds a root-only tenant by its leaves only; its first issuing CA then takes the policy', async () => {
      const tenant = await createTenant(sut, { validityYears: 2 });
      const put = await putPolicy(tenant, { allowedDnsSuffixes: ['example.com'] });
      expect(put.json()).toEqual({
        allowedDnsSuffixes: ['example.com'],
        allowedUsages: ['Client', 'Server'],
      });
      expect((await cas(tenant)).map(({ role }) => role)).toEqual(['root']);
      expect(constraintsOf(tenant.caPem)).toBeNull();

      const added = await tenant.post('/v2/ca/issuing', { validityDays: 365 });
      expect(added.status).toBe(201);
      const { certificatePem } = added.json<{ certificatePem: string }>();
      expect(constraintsOf(certificatePem)).toMatchObject({
        critical: true,
        permittedDnsNames: ['example.com'],
      });
      const leaf = await issue(tenant, server(['www.example.com']));
      expect(await verify(tenant.caPem, certificatePem, leaf, 'sslserver')).toMatchObject({ status: 0 });
    });
  });
});
