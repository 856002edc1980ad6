import 'reflect-metadata';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, createServer } from 'node:tls';
import { SoftHsmToken, createSoftHsmToken, softHsmLibrary } from '@ca/custody/testing';
import { parseOcspResponse, pemToDer } from '@ca/pki';
import { IssuedCertificate, TestTenant, adminRequest, createTenant, issueBody } from './support/admin-api';
import { eventually, http } from './support/http';
import {
  eventuallyCrl,
  eventuallyRevokedInOcsp,
  ocspRequestDer,
  ocspStatus,
  opensslAsync,
} from './support/pki';
import { expectProblem } from './support/problems';
import { SystemUnderTest, startSystemUnderTest, systemModes } from './support/system-under-test';

/**
 * docs/api.md#external-root: an issuing CA whose key the service holds, certified by the tenant's
 * corporate root (made here with openssl) from the CSR `ExternalRoot` answers. Until the upload
 * nothing is signed; each bad upload is refused with its own code and changes nothing; afterwards
 * leaves chain to the corporate root for openssl and Node's TLS, and /crl and OCSP answer for them.
 * Then a rollover: a second CSR while the first CA still signs, its upload (only under the same
 * corporate root), after which old and new leaves both verify, with a CRL and OCSP for each CA.
 */
jest.setTimeout(120_000);

type Issued = IssuedCertificate & { chainPem: string };

const CA_EXTENSIONS = [
  'basicConstraints=critical,CA:TRUE,pathlen:0',
  'keyUsage=critical,keyCertSign,cRLSign',
  'subjectKeyIdentifier=hash',
  'authorityKeyIdentifier=keyid:always',
].join('\n');

// Both modes, and the embedded system with the CA key in a PKCS#11 token (SoftHSM2) when there is one:
// the CSR is then signed inside the token.
const modes = [
  ...systemModes('external root suite'),
  ...(process.env.TEST_REAL_ONLY !== '1' && softHsmLibrary() ? (['embedded, pkcs11'] as const) : []),
];

describe.each(modes)('External root (%s)', (mode) => {
  let sut: SystemUnderTest;
  let token: SoftHsmToken | undefined;
  let dir: string;
  const path = (name: string) => join(dir, name);
  const file = (name: string, content: string | Buffer) => {
    writeFileSync(path(name), content, { mode: 0o600 });
    return path(name);
  };
  const openssl = async (args: string[]) => {
    const run = await opensslAsync(args);
    if (run.status !== 0) throw new Error(`openssl ${args.join(' ')}: ${run.stderr}`);
    return run;
  };

  /** A self-signed corporate CA made by openssl (`name`.pem, `name`.key). */
  async function corporateRoot(name: string, basicConstraints = 'critical,CA:TRUE'): Promise<string> {
    await openssl([
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      path(`${name}.key`),
      '-out',
      path(`${name}.pem`),
      '-days',
      '365',
      '-subj',
      `/C=US/O=Corp/CN=${name}`,
      '-addext',
      `basicConstraints=${basicConstraints}`,
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ]);
    return readFileSync(path(`${name}.pem`), 'utf8');
  }

  /** `csrPem` signed by the corporate CA `issuer` with `extensions` (openssl x509 -req -extfile). */
  async function signed(
    csrPem: string,
    issuer: string,
    extensions = CA_EXTENSIONS,
    days = '30',
  ): Promise<string> {
    await openssl([
      'x509',
      '-req',
      '-in',
      file('request.csr', csrPem),
      '-CA',
      path(`${issuer}.pem`),
      '-CAkey',
      path(`${issuer}.key`),
      '-CAcreateserial',
      '-days',
      days,
      '-extfile',
      file('ext.cnf', extensions),
      '-out',
      path('signed.pem'),
    ]);
    return readFileSync(path('signed.pem'), 'utf8');
  }

  async function externalTenant(): Promise<{
    tenant: TestTenant;
    caId: string;
    csrPem: string;
    answer: Record<string, unknown>;
  }> {
    const tenant = await createTenant(sut, { ca: false });
    const answer = await tenant.post('/v2/ca/initialize', {
      commonName: 'Acme Partner',
      organization: 'Acme Corp',
      country: 'US',
      validityYears: 5,
      hierarchy: 'ExternalRoot',
    });
    expect(answer.status).toBe(200);
    const body = answer.json<{ issuingCa: { caId: string; csrPem: string } }>();
    return { tenant, caId: body.issuingCa.caId, csrPem: body.issuingCa.csrPem, answer: body };
  }

  const upload = (tenant: TestTenant, caId: string, certificatePem: string, chainPem: string) =>
    adminRequest(sut, 'PUT', `/v2/ca/${caId}/certificate`, tenant.bearer, { certificatePem, chainPem });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'external-root-'));
    if (mode === 'embedded, pkcs11') {
      token = createSoftHsmToken('external-root');
      sut = await startSystemUnderTest('embedded', {
        env: {
          KEY_CUSTODY: 'pkcs11',
          PKCS11_LIBRARY: token.library,
          PKCS11_TOKEN_LABEL: token.tokenLabel,
          PKCS11_PIN: token.pin,
        },
      });
    } else sut = await startSystemUnderTest(mode, { shippedBus: true });
    await corporateRoot('corp-root');
    // A corporate intermediate that may certify one CA below it: ours.
    await openssl([
      'req',
      '-new',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      path('corp-policy.key'),
      '-out',
      path('corp-policy.csr'),
      '-subj',
      '/C=US/O=Corp/CN=Corp Policy CA',
    ]);
    await signed(
      readFileSync(path('corp-policy.csr'), 'utf8'),
      'corp-root',
      CA_EXTENSIONS.replace('pathlen:0', 'pathlen:1'),
      '200',
    );
    writeFileSync(path('corp-policy.pem'), readFileSync(path('signed.pem')));
  });

  afterAll(async () => {
    await sut?.stop();
    token?.remove();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  describe('a tenant whose issuing CA is certified by its corporate root through an intermediate', () => {
    let tenant: TestTenant;
    let caId: string;
    let csrPem: string;
    let issuingPem: string;
    let rootPem: string;
    let policyPem: string;
    let server: Issued;
    let client: Issued;

    beforeAll(async () => {
      let answer: Record<string, unknown>;
      ({ tenant, caId, csrPem, answer } = await externalTenant());
      expect(answer).toEqual({
        hierarchy: 'ExternalRoot',
        keyAlgorithm: 'P-256',
        issuingCa: {
          caId,
          csrPem: expect.stringContaining('-----BEGIN CERTIFICATE REQUEST-----'),
          state: 'pending',
        },
      });
      rootPem = readFileSync(path('corp-root.pem'), 'utf8');
      policyPem = readFileSync(path('corp-policy.pem'), 'utf8');
    });

    it('answers a CSR signed by the CA key, for the subject of our issuing CAs, asking for CA extensions', async () => {
      const read = await openssl([
        'req',
        '-in',
        file('ours.csr', csrPem),
        '-noout',
        '-verify',
        '-subject',
        '-text',
      ]);
      expect(`${read.stdout}${read.stderr}`).toMatch(/verify OK/i);
      expect(read.stdout).toContain('subject=C = US, O = Acme Corp, CN = Acme Partner Issuing CA');
      expect(read.stdout).toMatch(/CA:TRUE, pathlen:0/);
      expect(read.stdout).toMatch(/Certificate Sign, CRL Sign/);
    });

    it('lists the CA as pending, refuses to issue (409 ISSUING_CA_PENDING, nothing stored) and to initialize again', async () => {
      const { cas } = (await tenant.get('/v2/ca')).json<{
        cas: { caId: string; state: string; csrPem?: string }[];
      }>();
      expect(cas).toEqual([expect.objectContaining({ caId, role: 'issuing', state: 'pending', csrPem })]);
      for (const route of ['/v1/certificates', '/v2/certificates']) {
        const refused = await tenant.post(
          route,
          issueBody({ clientId: 'too-early', commonName: 'too-early' }),
        );
        expect(refused.status).toBe(409);
        expect(refused.json<{ code: string }>().code).toBe('ISSUING_CA_PENDING');
      }
      const listed = (await tenant.get('/v1/certificates')).json<{ certificates: unknown[] }>();
      expect(listed.certificates).toHaveLength(0);
      const again = await tenant.post('/v2/ca/initialize', {
        commonName: 'Acme Partner',
        organization: 'Acme Corp',
        country: 'US',
        validityYears: 5,
      });
      expect(again.status).toBe(409);
    });

    it('refuses bad uploads, each with its own code, and the CA stays pending', async () => {
      const chain = policyPem + rootPem;
      const good = await signed(csrPem, 'corp-policy');
      // A certificate for another key.
      await openssl([
        'req',
        '-new',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-keyout',
        path('other.key'),
        '-out',
        path('other.csr'),
        '-subj',
        '/CN=Other',
      ]);
      const otherKey = await signed(readFileSync(path('other.csr'), 'utf8'), 'corp-policy');
      const notCa = await signed(
        csrPem,
        'corp-policy',
        'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature',
      );
      const expired = await signed(csrPem, 'corp-policy', CA_EXTENSIONS, '-1');
      const strictRootPem = await corporateRoot('strict-root', 'critical,CA:TRUE,pathlen:0');
      const underStrict = await signed(csrPem, 'strict-root');
      // 300 days under the 200-day corporate intermediate: its last 100 days would certify nothing.
      const outliving = await signed(csrPem, 'corp-policy', CA_EXTENSIONS, '300');
      const refusals: [string, string, string, string][] = [
        ['not PEM', 'garbage', chain, 'CA_CERTIFICATE_INVALID'],
        ['another key', otherKey, chain, 'CA_CERTIFICATE_KEY_MISMATCH'],
        ['not a CA', notCa, chain, 'CA_CERTIFICATE_NOT_CA'],
        ['expired', expired, chain, 'CA_CERTIFICATE_NOT_VALID_NOW'],
        ['root pathlen 0', underStrict, strictRootPem, 'CA_CHAIN_PATH_LENGTH_EXCEEDED'],
        ['outlives the intermediate', outliving, chain, 'CA_CERTIFICATE_OUTLIVES_CHAIN'],
        ['intermediate missing', good, rootPem, 'CA_CHAIN_SIGNATURE_INVALID'],
        ['another root', good, policyPem + strictRootPem, 'CA_CHAIN_SIGNATURE_INVALID'],
        ['no root', good, policyPem, 'CA_CHAIN_SIGNATURE_INVALID'],
      ];
      for (const [what, certificatePem, chainPem, code] of refusals) {
        const refused = await upload(tenant, caId, certificatePem, chainPem);
        expect({ what, status: refused.status, code: refused.json<{ code: string }>().code }).toEqual({
          what,
          status: 400,
          code,
        });
        expect(refused.headers.get('content-type')).toMatch(/application\/problem\+json/);
      }
      expect((await upload(tenant, '00000000-0000-4000-8000-000000000000', good, chain)).status).toBe(404);
      const { cas } = (await tenant.get('/v2/ca')).json<{ cas: { state: string }[] }>();
      expect(cas.map((ca) => ca.state)).toEqual(['pending']);
      expect((await http(`${sut.pkiUrl}/v1/tenants/${tenant.tenantId}/ca.pem`)).status).toBe(404);
    });

    it('activates the CA on a good upload, once: a second upload is 409', async () => {
      issuingPem = await signed(csrPem, 'corp-policy');
      const answer = await upload(tenant, caId, issuingPem, policyPem + rootPem);
      expect(answer.status).toBe(200);
      expect(answer.json()).toMatchObject({
        caId,
        state: 'active',
        certificatePem: issuingPem,
        chainPem: issuingPem + policyPem,
        rootCertificatePem: rootPem,
        keyAlgorithm: 'P-256',
      });
      expect((await upload(tenant, caId, issuingPem, policyPem + rootPem)).status).toBe(409);
      const { cas } = (await tenant.get('/v2/ca')).json<{
        cas: { role: string; state: string; caId: string; external?: boolean }[];
      }>();
      expect(cas.map(({ role, state, external }) => ({ role, state, external }))).toEqual([
        { role: 'root', state: 'active', external: true },
        { role: 'issuing', state: 'active', external: undefined },
      ]);
      expect(cas[1].caId).toBe(caId);
    });

    it('serves the corporate root as ca.pem and .crt, the uploaded CA as issuing-ca.pem; no root.crl', async () => {
      const base = `${sut.pkiUrl}/v1/tenants/${tenant.tenantId}`;
      const caPem = await eventually(
        async () => {
          const answer = await http(`${base}/ca.pem`);
          return answer.status === 200 ? answer.text : undefined;
        },
        5_000,
        'ca.pem',
      );
      expect(caPem).toBe(rootPem);
      expect(Buffer.from((await http(`${base}/ca.crt`)).body)).toEqual(Buffer.from(pemToDer(rootPem)));
      expect((await http(`${base}/issuing-ca.pem`)).text).toBe(issuingPem);
      expect((await http(`${base}/root.crl`)).status).toBe(404);
    });

    it('issues leaves under the uploaded CA with the chain up to the corporate root; openssl verifies them strictly', async () => {
      server = (await tenant.issue(
        issueBody({
          clientId: 'web',
          commonName: 'localhost',
          usage: 'ClientAndServer',
          subjectAlternativeNames: ['localhost'],
          validityDays: 20,
        }),
        '/v2/certificates',
      )) as Issued;
      client = (await tenant.issue(
        issueBody({ clientId: 'client', commonName: 'client', validityDays: 20 }),
      )) as Issued;
      expect(server.chainPem).toBe(issuingPem + policyPem);
      const leaf = new X509Certificate(server.certificatePem);
      expect(leaf.checkIssued(new X509Certificate(issuingPem))).toBe(true);
      expect(leaf.infoAccess).toContain(`/v1/tenants/${tenant.tenantId}/issuing-ca.crt`);
      const verified = await opensslAsync([
        'verify',
        '-x509_strict',
        '-CAfile',
        path('corp-root.pem'),
        '-untrusted',
        file('chain.pem', server.chainPem),
        file('leaf.pem', server.certificatePem),
      ]);
      expect(verified).toMatchObject({ status: 0 });
      const detail = await tenant.get(`/v1/certificates/${client.certificateId}`);
      expect(detail.json<{ chainPem: string }>().chainPem).toBe(issuingPem + policyPem);
    });

    it("Node's TLS client trusting only the corporate root connects to a server with the leaf and chain", async () => {
      const tlsServer = createServer(
        { cert: server.certificatePem + server.chainPem, key: server.privateKeyPem },
        (socket) => socket.end('hello'),
      );
      await new Promise<void>((resolve) => tlsServer.listen(0, '127.0.0.1', resolve));
      try {
        const port = (tlsServer.address() as { port: number }).port;
        const said = await new Promise<string>((resolve, reject) => {
          const socket = connect({ host: '127.0.0.1', port, servername: 'localhost', ca: rootPem });
          let text = '';
          socket.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
          socket.once('end', () => resolve(text));
          socket.once('error', reject);
        });
        expect(said).toBe('hello');
      } finally {
        await new Promise((resolve) => tlsServer.close(resolve));
      }
    });

    it('answers OCSP good then revoked, lists the revoked leaf on /crl signed by the issuing CA; OCSP about the issuing CA is unauthorized', async () => {
      const issuingDer = pemToDer(issuingPem);
      expect(
        await eventually(
          () =>
            // `unknown` until the responder has the issue event (docs/api.md#ocsp): wait for good.
            ocspStatus(sut.pkiUrl, tenant.tenantId, issuingDer, client.serialNumber).then(
              (status) => (status.kind === 'good' ? status : undefined),
              () => undefined,
            ),
          10_000,
          'OCSP good',
        ),
      ).toMatchObject({ kind: 'good' });
      const revoked = await tenant.post(`/v1/certificates/${client.certificateId}/revoke`, {
        reason: 'lost',
        reasonCode: 'KeyCompromise',
      });
      expect(revoked.status).toBe(200);
      await eventuallyRevokedInOcsp(sut.pkiUrl, tenant.tenantId, issuingDer, client.serialNumber);
      const { der } = await eventuallyCrl(sut.pkiUrl, tenant.tenantId, (crl) =>
        crl.entries.some((entry) => entry.serialNumberHex === client.serialNumber),
      );
      const checked = await opensslAsync([
        'crl',
        '-inform',
        'DER',
        '-in',
        file('issuing.crl', der),
        '-CAfile',
        file('issuing.pem', issuingPem),
        '-noout',
      ]);
      expect(checked.stderr).toMatch(/verify OK/);
      // The issuing CA's own status is the corporate CA's to answer (RFC 6960 2.3).
      const serial = new X509Certificate(issuingPem).serialNumber;
      const answer = await http(`${sut.pkiUrl}/v1/tenants/${tenant.tenantId}/ocsp`, {
        method: 'POST',
        headers: { 'content-type': 'application/ocsp-request' },
        body: ocspRequestDer(pemToDer(policyPem), serial),
      });
      expect(parseOcspResponse(new Uint8Array(answer.body)).responseStatus).toBe('unauthorized');
    });

    it('refuses to revoke the uploaded CA (409 REVOKE_AT_CORPORATE_CA: the corporate CA publishes that) and changes nothing', async () => {
      const before = (await tenant.get('/v2/ca')).json();
      const refused = await tenant.post(`/v2/ca/${caId}/revoke`, {
        reason: 'key leaked',
        reasonCode: 'KeyCompromise',
      });
      const problem = expectProblem(
        refused,
        409,
        'REVOKE_AT_CORPORATE_CA',
        'ca-manager/revoke-at-corporate-ca',
      );
      expect(problem.detail).toMatch(/corporate CA/);
      expect(problem.recovery).toMatch(/POST \/v2\/ca\/issuing/);
      expect((await tenant.get('/v2/ca')).json()).toEqual(before);
      const leaf = await tenant.post('/v2/certificates', issueBody({ validityDays: 5 }));
      expect(leaf.status).toBe(200);
    });

    it('takes an issuance policy without replacing the uploaded CA: the policy binds leaves', async () => {
      const before = (await tenant.get('/v2/ca')).json<{ cas: { caId: string; state: string }[] }>();
      const set = await adminRequest(sut, 'PUT', '/v2/policy', tenant.bearer, {
        allowedDnsSuffixes: ['corp.example'],
      });
      expect(set.status).toBe(200);
      expect(set.json<Record<string, unknown>>()).not.toHaveProperty('issuingCaId');
      expect((await tenant.get('/v2/ca')).json()).toEqual(before);
      const outside = await tenant.post(
        '/v2/certificates',
        issueBody({ commonName: 'client.elsewhere.test' }),
      );
      expect(outside.status).toBe(400);
      expect(outside.json<{ code: string }>().code).toBe('NAME_NOT_ALLOWED_BY_POLICY');
      await adminRequest(sut, 'DELETE', '/v2/policy', tenant.bearer);
    });

    // docs/api.md#add-an-issuing-ca under a corporate root: a new CSR while the current CA signs.
    describe('rollover to a second issuing CA certified by the same corporate root', () => {
      let nextId: string;
      let nextCsr: string;
      let nextPem: string;
      let oldLeaf: Issued;
      let newLeaf: Issued;
      const base = () => `${sut.pkiUrl}/v1/tenants/${tenant.tenantId}`;
      const verifyStrict = (leaf: Issued) =>
        opensslAsync([
          'verify',
          '-x509_strict',
          '-CAfile',
          path('corp-root.pem'),
          '-untrusted',
          file('rolled-chain.pem', leaf.chainPem),
          file('rolled-leaf.pem', leaf.certificatePem),
        ]);

      it('answers a pending CA and its CSR (one at a time, no validityDays); the active CA keeps issuing', async () => {
        const withDays = await tenant.post('/v2/ca/issuing', { validityDays: 30 });
        expect(withDays.status).toBe(400);
        expect(withDays.json<{ code: string }>().code).toBe('VALIDATION_FAILED');
        const answer = await tenant.post('/v2/ca/issuing', {});
        expect(answer.status).toBe(201);
        const body = answer.json<{ caId: string; csrPem: string }>();
        ({ caId: nextId, csrPem: nextCsr } = body);
        expect(body).toEqual({
          caId: expect.any(String),
          state: 'pending',
          csrPem: expect.stringContaining('-----BEGIN CERTIFICATE REQUEST-----'),
          keyAlgorithm: 'P-256',
        });
        const read = await openssl([
          'req',
          '-in',
          file('next.csr', nextCsr),
          '-noout',
          '-verify',
          '-subject',
        ]);
        expect(read.stdout).toContain('subject=C = US, O = Acme Corp, CN = Acme Partner Issuing CA 2');
        const again = await tenant.post('/v2/ca/issuing', {});
        expect({ status: again.status, code: again.json<{ code: string }>().code }).toEqual({
          status: 409,
          code: 'CONFLICT',
        });
        const { cas } = (await tenant.get('/v2/ca')).json<{ cas: { caId: string; state: string }[] }>();
        expect(cas.map(({ caId: id, state }) => ({ id, state }))).toEqual([
          { id: expect.any(String), state: 'active' },
          { id: caId, state: 'active' },
          { id: nextId, state: 'pending' },
        ]);
        oldLeaf = (await tenant.issue(
          issueBody({ clientId: 'old', commonName: 'old', validityDays: 20 }),
          '/v2/certificates',
        )) as Issued;
        expect(new X509Certificate(oldLeaf.certificatePem).checkIssued(new X509Certificate(issuingPem))).toBe(
          true,
        );
      });

      it('refuses a chain ending at another self-signed root (CA_CHAIN_ROOT_MISMATCH) and changes nothing', async () => {
        const otherRootPem = await corporateRoot('other-root');
        const before = (await tenant.get('/v2/ca')).json();
        const refused = await upload(tenant, nextId, await signed(nextCsr, 'other-root'), otherRootPem);
        expect({ status: refused.status, code: refused.json<{ code: string }>().code }).toEqual({
          status: 400,
          code: 'CA_CHAIN_ROOT_MISMATCH',
        });
        expect((await tenant.get('/v2/ca')).json()).toEqual(before);
      });

      it('activates the new CA on upload: it signs new leaves, the old one is retired; both verify strictly', async () => {
        // Signed by the root directly this time: the intermediates are the upload's own.
        nextPem = await signed(nextCsr, 'corp-root');
        const answer = await upload(tenant, nextId, nextPem, rootPem);
        expect(answer.status).toBe(200);
        expect(answer.json()).toMatchObject({
          caId: nextId,
          state: 'active',
          certificatePem: nextPem,
          chainPem: nextPem,
          rootCertificatePem: rootPem,
          keyAlgorithm: 'P-256',
          retiredCaId: caId,
        });
        const { cas } = (await tenant.get('/v2/ca')).json<{ cas: { caId: string; state: string }[] }>();
        expect(cas.map(({ caId: id, state }) => ({ id, state }))).toEqual([
          { id: expect.any(String), state: 'active' },
          { id: caId, state: 'retired' },
          { id: nextId, state: 'active' },
        ]);
        newLeaf = (await tenant.issue(
          issueBody({ clientId: 'new', commonName: 'new', validityDays: 20 }),
          '/v2/certificates',
        )) as Issued;
        expect(newLeaf.chainPem).toBe(nextPem);
        const der = Buffer.from(pemToDer(newLeaf.certificatePem));
        expect(new X509Certificate(der).checkIssued(new X509Certificate(nextPem))).toBe(true);
        // Its own paths (docs/api.md#add-an-issuing-ca), so the old leaves keep theirs.
        expect(der.includes(`/v1/tenants/${tenant.tenantId}/ca/${nextId}/crl`)).toBe(true);
        expect(der.includes(`/v1/tenants/${tenant.tenantId}/ca/${nextId}.crt`)).toBe(true);
        expect(await verifyStrict(oldLeaf)).toMatchObject({ status: 0 });
        expect(await verifyStrict(newLeaf)).toMatchObject({ status: 0 });
      });

      it("serves each CA's CRL and certificate and answers OCSP for a leaf of each; an old leaf revoked is on the old CA's CRL", async () => {
        const cas = [
          { id: caId, pem: issuingPem, leaf: oldLeaf },
          { id: nextId, pem: nextPem, leaf: newLeaf },
        ];
        for (const { id, pem, leaf } of cas) {
          const status = await eventually(
            () =>
              ocspStatus(sut.pkiUrl, tenant.tenantId, pemToDer(pem), leaf.serialNumber).then(
                (answer) => (answer.kind === 'good' ? answer : undefined),
                () => undefined,
              ),
            10_000,
            `OCSP good under ${id}`,
          );
          expect(status).toMatchObject({ kind: 'good' });
          const crt = await http(`${base()}/ca/${id}.crt`);
          expect(Buffer.from(crt.body)).toEqual(Buffer.from(pemToDer(pem)));
        }
        const revoked = await tenant.post(`/v1/certificates/${oldLeaf.certificateId}/revoke`, {
          reason: 'lost',
          reasonCode: 'KeyCompromise',
        });
        expect(revoked.status).toBe(200);
        for (const { id, pem } of cas) {
          const { der, crl } = await eventuallyCrl(
            sut.pkiUrl,
            tenant.tenantId,
            (listed) =>
              id === nextId || listed.entries.some((entry) => entry.serialNumberHex === oldLeaf.serialNumber),
            `CRL of ${id}`,
            `ca/${id}/crl`,
          );
          expect(crl.entries.some((entry) => entry.serialNumberHex === oldLeaf.serialNumber)).toBe(
            id === caId,
          );
          const checked = await opensslAsync([
            'crl',
            '-inform',
            'DER',
            '-in',
            file(`${id}.crl`, der),
            '-CAfile',
            file(`${id}.pem`, pem),
            '-noout',
          ]);
          expect(checked.stderr).toMatch(/verify OK/);
        }
        await eventuallyRevokedInOcsp(
          sut.pkiUrl,
          tenant.tenantId,
          pemToDer(issuingPem),
          oldLeaf.serialNumber,
        );
      });
    });
  });
});
