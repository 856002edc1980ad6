import 'reflect-metadata';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, connect } from 'node:tls';
import { derToPem, pemToDer } from '@ca/pki';
import { IssuedCertificate, TestTenant, createTenant, issueBody } from './support/admin-api';
import { eventually, http } from './support/http';
import { httpsGet, startNginx } from './support/nginx';
import { eventuallyCrl, eventuallyRevokedInOcsp, ocspStatus, opensslAsync } from './support/pki';
import { runOperatorCommand } from './support/operator';
import { describeIfPrograms, hasProgram, runProgram } from './support/programs';
import { SystemUnderTest, startSystemUnderTest, systemModes } from './support/system-under-test';

/**
 * docs/api.md#initialize-the-ca-v2: a tenant with a root and an issuing CA under it, each key
 * algorithm; leaves signed by the issuing CA carry their chain, verify strictly with openssl,
 * nginx (ssl_verify_depth 2) and Node's TLS, and are answered for by the issuing CA's CRL and OCSP.
 */
jest.setTimeout(120_000);

interface V2Ca {
  caId: string;
  certificatePem: string;
  expiresAt: string;
  hierarchy: string;
  keyAlgorithm: string;
  issuingCa?: { caId: string; certificatePem: string; expiresAt: string };
}

type Issued = IssuedCertificate & { chainPem: string };

describe.each(systemModes('CA hierarchy suite'))('CA hierarchy (%s)', (mode) => {
  let sut: SystemUnderTest;
  let dir: string;
  const file = (name: string, content: string | Buffer) => {
    const path = join(dir, name);
    writeFileSync(path, content, { mode: 0o600 });
    return path;
  };

  async function v2Tenant(body: Record<string, unknown> = {}): Promise<{ tenant: TestTenant; ca: V2Ca }> {
    const tenant = await createTenant(sut, { ca: false });
    const answer = await tenant.post('/v2/ca/initialize', {
      commonName: 'Hierarchy Root',
      organization: 'Acme Corp',
      country: 'US',
      validityYears: 5,
      ...body,
    });
    if (answer.status !== 200) throw new Error(`v2 initialize: ${answer.status} ${answer.text}`);
    return { tenant, ca: answer.json<V2Ca>() };
  }

  const verify = (rootPem: string, leaf: Issued) =>
    opensslAsync([
      'verify',
      '-x509_strict',
      '-CAfile',
      file('root.pem', rootPem),
      ...(leaf.chainPem ? ['-untrusted', file('chain.pem', leaf.chainPem)] : []),
      file('leaf.pem', leaf.certificatePem),
    ]);

  /** openssl checks every certificate of the chain against its issuer's CRL (RFC 5280 6.3). */
  const verifyWithCrls = (rootPem: string, leaf: Issued, rootCrlDer: Buffer, crlDer: Buffer) =>
    opensslAsync([
      'verify',
      '-x509_strict',
      '-crl_check_all',
      '-CRLfile',
      file('chain-root.crl.pem', derToPem(new Uint8Array(rootCrlDer), 'X509 CRL')),
      '-CRLfile',
      file('chain-leaves.crl.pem', derToPem(new Uint8Array(crlDer), 'X509 CRL')),
      '-CAfile',
      file('root.pem', rootPem),
      '-untrusted',
      file('chain.pem', leaf.chainPem),
      file('leaf.pem', leaf.certificatePem),
    ]);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ca-hierarchy-'));
    sut = await startSystemUnderTest(mode, { shippedBus: true });
  });

  afterAll(async () => {
    await sut?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  describe('a v2 tenant with the defaults (RootAndIssuing, P-256)', () => {
    let tenant: TestTenant;
    let ca: V2Ca;
    let issuingPem: string;
    let leaf: Issued;
    let server: Issued;

    beforeAll(async () => {
      ({ tenant, ca } = await v2Tenant());
      issuingPem = ca.issuingCa!.certificatePem;
      leaf = (await tenant.issue(
        issueBody({ clientId: 'chain-client', commonName: 'chain-client' }),
      )) as Issued;
      server = (await tenant.issue(
        issueBody({
          clientId: 'web',
          commonName: 'localhost',
          usage: 'ClientAndServer',
          subjectAlternativeNames: ['localhost'],
          validityDays: 30,
        }),
        '/v2/certificates',
      )) as Issued;
    });

    it('answers the root and the issuing CA; the root signs the issuing CA, pathLen 0, CDP and AIA of the tenant', () => {
      expect(ca).toMatchObject({ hierarchy: 'RootAndIssuing', keyAlgorithm: 'P-256' });
      const root = new X509Certificate(ca.certificatePem);
      const issuing = new X509Certificate(issuingPem);
      expect(issuing.verify(root.publicKey)).toBe(true);
      expect(issuing.issuer).toBe(root.subject);
      expect(issuing.subject).toContain('CN=Hierarchy Root Issuing CA');
      expect(issuing.ca).toBe(true);
      expect(new Date(issuing.validTo) <= new Date(root.validTo)).toBe(true);
      expect(issuing.infoAccess).toContain(`/v1/tenants/${tenant.tenantId}/ca.crt`);
    });

    it('lists both CAs with GET /v2/ca', async () => {
      const answer = await tenant.get('/v2/ca');
      expect(answer.status).toBe(200);
      const { cas } = answer.json<{
        cas: { role: string; caId: string; state: string; keyAlgorithm: string }[];
      }>();
      expect(cas.map(({ role, state, keyAlgorithm }) => ({ role, state, keyAlgorithm }))).toEqual([
        { role: 'root', state: 'active', keyAlgorithm: 'P-256' },
        { role: 'issuing', state: 'active', keyAlgorithm: 'P-256' },
      ]);
      expect(cas[1].caId).toBe(ca.issuingCa!.caId);
    });

    it('issues leaves under the issuing CA, with chainPem, that openssl verifies strictly against the root', async () => {
      expect(leaf.chainPem).toBe(issuingPem);
      const certificate = new X509Certificate(leaf.certificatePem);
      expect(certificate.checkIssued(new X509Certificate(issuingPem))).toBe(true);
      expect(certificate.infoAccess).toContain(`/v1/tenants/${tenant.tenantId}/issuing-ca.crt`);
      expect(await verify(ca.certificatePem, leaf)).toMatchObject({ status: 0 });
      // Without the chain the root alone does not verify the leaf.
      expect((await verify(ca.certificatePem, { ...leaf, chainPem: '' })).status).not.toBe(0);
      const detail = await tenant.get(`/v1/certificates/${leaf.certificateId}`);
      expect(detail.json<{ chainPem: string }>().chainPem).toBe(issuingPem);
    });

    it('serves the root as ca.pem and the issuing CA as issuing-ca.pem and .crt', async () => {
      const base = `${sut.pkiUrl}/v1/tenants/${tenant.tenantId}`;
      expect((await http(`${base}/ca.pem`)).text).toBe(ca.certificatePem);
      const pem = await http(`${base}/issuing-ca.pem`);
      expect(pem.status).toBe(200);
      expect(pem.headers.get('content-type')).toBe('application/x-pem-file');
      expect(pem.headers.get('etag')).toBeTruthy();
      expect(pem.text).toBe(issuingPem);
      const crt = await http(`${base}/issuing-ca.crt`);
      expect(crt.headers.get('content-type')).toBe('application/pkix-cert');
      expect(Buffer.from(crt.body)).toEqual(Buffer.from(pemToDer(issuingPem)));
    });

    it('revokes a leaf on the issuing CA CRL (verified by openssl) and in OCSP asked about the issuing CA', async () => {
      const issuingDer = pemToDer(issuingPem);
      const victim = (await tenant.issue(issueBody({ clientId: 'victim', commonName: 'victim' }))) as Issued;
      const revoked = await tenant.post(`/v1/certificates/${victim.certificateId}/revoke`, {
        reason: 'lost',
        reasonCode: 'KeyCompromise',
      });
      expect(revoked.status).toBe(200);
      await eventuallyRevokedInOcsp(sut.pkiUrl, tenant.tenantId, issuingDer, victim.serialNumber);
      expect(await ocspStatus(sut.pkiUrl, tenant.tenantId, issuingDer, leaf.serialNumber)).toMatchObject({
        kind: 'good',
      });
      // Under the root only the issuing CA is known: a leaf's serial there is unknown (once the
      // root's signer exists; tryLater before).
      const underRoot = await eventually(
        () =>
          ocspStatus(sut.pkiUrl, tenant.tenantId, pemToDer(ca.certificatePem), leaf.serialNumber).catch(
            () => undefined,
          ),
        10_000,
        'OCSP under the root',
      );
      expect(underRoot).toMatchObject({ kind: 'unknown' });
      const { der } = await eventuallyCrl(sut.pkiUrl, tenant.tenantId, (crl) =>
        crl.entries.some((entry) => entry.serialNumberHex === victim.serialNumber),
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
      const ocsp = await opensslAsync([
        'ocsp',
        '-issuer',
        file('issuing.pem', issuingPem),
        '-cert',
        file('victim.pem', victim.certificatePem),
        '-url',
        `${sut.pkiUrl}/v1/tenants/${tenant.tenantId}/ocsp`,
        '-CAfile',
        file('root.pem', ca.certificatePem),
        '-verify_other',
        file('issuing.pem', issuingPem),
      ]);
      expect(`${ocsp.stdout}${ocsp.stderr}`).toMatch(/: revoked/);
      expect(ocsp.stderr).toMatch(/Response verify OK/);
    });

    it('publishes root.crl signed by the root (openssl verifies it), with ETag and 304, and openssl checks the whole chain against both CRLs', async () => {
      const base = `${sut.pkiUrl}/v1/tenants/${tenant.tenantId}`;
      const { der, crl, contentType } = await eventuallyCrl(
        sut.pkiUrl,
        tenant.tenantId,
        () => true,
        'root.crl',
        'root.crl',
      );
      expect(contentType).toBe('application/pkix-crl');
      expect(crl.entries).toHaveLength(0);
      const rootCrlPem = file('root-crl.pem', derToPem(new Uint8Array(der), 'X509 CRL'));
      const checked = await opensslAsync([
        'crl',
        '-in',
        rootCrlPem,
        '-CAfile',
        file('root.pem', ca.certificatePem),
        '-noout',
        '-issuer',
      ]);
      expect(checked.stderr).toMatch(/verify OK/);
      expect(checked.stdout).toMatch(/CN = Hierarchy Root\n/);
      expect(checked.stdout).not.toContain('Issuing CA');
      const first = await http(`${base}/root.crl`);
      expect(first.headers.get('etag')).toBeTruthy();
      expect(first.headers.get('last-modified')).toBeTruthy();
      expect(first.headers.get('cache-control')).toMatch(/max-age=/);
      const again = await http(`${base}/root.crl`, {
        headers: { 'if-none-match': first.headers.get('etag')! },
      });
      expect(again.status).toBe(304);
      const { der: leafCrl } = await eventuallyCrl(sut.pkiUrl, tenant.tenantId, () => true);
      expect(await verifyWithCrls(ca.certificatePem, leaf, der, leafCrl)).toMatchObject({ status: 0 });
    });

    it('keeps a leaf within its issuer: validityDays past the issuing CA is 400 on validityDays', async () => {
      const answer = await tenant.post('/v1/certificates', issueBody({ validityDays: 3650 }));
      expect(answer.status).toBe(400);
      expect(answer.text).toContain('validityDays');
    });

    it("Node's TLS accepts the chain both ways (server and client certificates with chainPem, root as the only anchor)", async () => {
      const tlsServer = createServer(
        {
          cert: server.certificatePem + server.chainPem,
          key: server.privateKeyPem,
          ca: ca.certificatePem,
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
            servername: 'localhost',
            ca: ca.certificatePem,
            cert: leaf.certificatePem + leaf.chainPem,
            key: leaf.privateKeyPem,
          });
          let text = '';
          socket.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
          socket.once('end', () => resolve(text));
          socket.once('error', reject);
        });
        expect(said).toBe('hello chain-client');
      } finally {
        tlsServer.close();
      }
    });

    describeIfPrograms(['nginx'], 'nginx', () => {
      it('verifies client certificates with the chain at ssl_verify_depth 2', async () => {
        const nginx = await startNginx(
          join(dir, 'nginx'),
          `    ssl_certificate ${file('server.pem', server.certificatePem + server.chainPem)};
    ssl_certificate_key ${file('server.key', server.privateKeyPem)};
    ssl_client_certificate ${file('nginx-root.pem', ca.certificatePem)};
    ssl_verify_client on;
    ssl_verify_depth 2;
    location / { return 200 "hello $ssl_client_s_dn\\n"; }`,
        );
        try {
          const ok = await httpsGet(nginx.port, {
            caPem: ca.certificatePem,
            certificatePem: leaf.certificatePem + leaf.chainPem,
            privateKeyPem: leaf.privateKeyPem,
          });
          expect(ok).toEqual({ status: 200, body: expect.stringContaining('CN=chain-client') });
        } finally {
          await nginx.stop();
        }
      });
    });
  });

  describe('revoking the issuing CA (key compromise)', () => {
    let classes: string | undefined;
    /** Java PKIX with revocation on for the whole chain (leaf and issuing CA), by their own URLs. */
    const pkixCheck = () =>
      runProgram('java', [
        '-Dcom.sun.security.enableCRLDP=true',
        '-cp',
        classes!,
        'PkixCheck',
        file('revoked-root.pem', ca.certificatePem),
        file('revoked-leaf-chain.pem', leaf.certificatePem + leaf.chainPem),
      ]);
    const javaAvailable = hasProgram('java') && hasProgram('javac');
    if (!javaAvailable)
      process.stderr.write('CA hierarchy: the Java PKIX checks are skipped, java not installed\n');
    let tenant: TestTenant;
    let ca: V2Ca;
    let leaf: Issued;
    const openssOcspOfIssuing = () =>
      opensslAsync([
        'ocsp',
        '-issuer',
        file('revoked-root.pem', ca.certificatePem),
        '-cert',
        file('revoked-issuing.pem', ca.issuingCa!.certificatePem),
        '-url',
        `${sut.pkiUrl}/v1/tenants/${tenant.tenantId}/ocsp`,
        '-CAfile',
        file('revoked-root.pem', ca.certificatePem),
      ]);
    const bothCrls = async (accept: (entries: string[]) => boolean) => {
      const root = await eventuallyCrl(
        sut.pkiUrl,
        tenant.tenantId,
        (crl) => accept(crl.entries.map((entry) => entry.serialNumberHex)),
        'root.crl entries',
        'root.crl',
      );
      const leaves = await eventuallyCrl(sut.pkiUrl, tenant.tenantId, () => true);
      return { rootCrl: root.der, crl: leaves.der };
    };

    const issuingSerialOf = async () =>
      (await tenant.get('/v2/ca'))
        .json<{ cas: { role: string; serialNumber: string }[] }>()
        .cas.find(({ role }) => role === 'issuing')!.serialNumber;

    beforeAll(async () => {
      ({ tenant, ca } = await v2Tenant());
      leaf = (await tenant.issue(issueBody({ clientId: 'before', commonName: 'before' }))) as Issued;
      if (javaAvailable) {
        classes = join(dir, 'classes');
        const compiled = await runProgram(
          'javac',
          ['-d', classes, join(__dirname, 'support', 'PkixCheck.java')],
          { timeoutMs: 40_000 },
        );
        expect(compiled.stderr).toBe('');
      }
    });

    it('before: OCSP under the root answers good for the issuing CA (root-certified signer), unknown for another serial; the chain passes -crl_check_all and Java PKIX with revocation on', async () => {
      const rootDer = pemToDer(ca.certificatePem);
      const issuingSerial = await issuingSerialOf();
      // The root's signer is made in the background after initialization: tryLater until then.
      await eventually(
        () => ocspStatus(sut.pkiUrl, tenant.tenantId, rootDer, issuingSerial).catch(() => undefined),
        10_000,
        'OCSP for the issuing CA',
      );
      const ocsp = await openssOcspOfIssuing();
      expect(`${ocsp.stdout}${ocsp.stderr}`).toMatch(/revoked-issuing\.pem: good/);
      expect(ocsp.stderr).toMatch(/Response verify OK/);
      expect(await ocspStatus(sut.pkiUrl, tenant.tenantId, rootDer, leaf.serialNumber)).toMatchObject({
        kind: 'unknown',
      });
      const { rootCrl, crl } = await bothCrls((entries) => entries.length === 0);
      expect(await verifyWithCrls(ca.certificatePem, leaf, rootCrl, crl)).toMatchObject({ status: 0 });
      if (javaAvailable) expect(await pkixCheck()).toMatchObject({ status: 0, stdout: 'VALID\n' });
    });

    it('refuses to revoke the root (400) and revokes the issuing CA once (then 409)', async () => {
      const root = await tenant.post(`/v2/ca/${ca.caId}/revoke`, {
        reason: 'x',
        reasonCode: 'KeyCompromise',
      });
      expect(root.status).toBe(400);
      expect(root.text).toContain('caId');
      const badReason = await tenant.post(`/v2/ca/${ca.issuingCa!.caId}/revoke`, {
        reason: 'x',
        reasonCode: 'CertificateHold',
      });
      expect(badReason.status).toBe(400);
      const revoked = await tenant.post(`/v2/ca/${ca.issuingCa!.caId}/revoke`, {
        reason: 'key leaked',
        reasonCode: 'KeyCompromise',
      });
      expect(revoked.status).toBe(200);
      expect(revoked.json<{ caId: string }>().caId).toBe(ca.issuingCa!.caId);
      const again = await tenant.post(`/v2/ca/${ca.issuingCa!.caId}/revoke`, {
        reason: 'again',
        reasonCode: 'KeyCompromise',
      });
      expect(again.status).toBe(409);
      const { cas } = (await tenant.get('/v2/ca')).json<{ cas: { role: string; state: string }[] }>();
      expect(cas.map(({ role, state }) => `${role}:${state}`)).toEqual(['root:active', 'issuing:revoked']);
    });

    it('after: root.crl lists it (verified with the root), OCSP answers revoked, -crl_check_all and Java PKIX refuse the chain, and no leaf is issued (409)', async () => {
      const issuingSerial = await issuingSerialOf();
      const { rootCrl, crl } = await bothCrls((entries) => entries.includes(issuingSerial));
      const checked = await opensslAsync([
        'crl',
        '-in',
        file('revoked-root.crl.pem', derToPem(new Uint8Array(rootCrl), 'X509 CRL')),
        '-CAfile',
        file('revoked-root.pem', ca.certificatePem),
        '-noout',
        '-text',
      ]);
      expect(checked.stderr).toMatch(/verify OK/);
      expect(checked.stdout).toMatch(/Key Compromise/);
      const rootDer = pemToDer(ca.certificatePem);
      await eventuallyRevokedInOcsp(sut.pkiUrl, tenant.tenantId, rootDer, issuingSerial);
      const ocsp = await openssOcspOfIssuing();
      expect(`${ocsp.stdout}${ocsp.stderr}`).toMatch(/revoked-issuing\.pem: revoked/);
      expect(ocsp.stderr).toMatch(/Response verify OK/);
      const verified = await verifyWithCrls(ca.certificatePem, leaf, rootCrl, crl);
      expect(verified.status).not.toBe(0);
      expect(`${verified.stdout}${verified.stderr}`).toMatch(/certificate revoked/);
      if (javaAvailable) {
        const java = await pkixCheck();
        expect(java.status).toBe(1);
        expect(java.stdout).toMatch(/^INVALID REVOKED: Certificate has been revoked/);
        expect(java.stdout).toMatch(/KEY_COMPROMISE/);
      }
      const refused = await tenant.post(
        '/v1/certificates',
        issueBody({ clientId: 'after', commonName: 'after' }),
      );
      expect(refused.status).toBe(409);
      expect(refused.headers.get('content-type')).toMatch(/problem\+json/);
      expect(refused.json<{ code: string }>().code).toBe('ISSUING_CA_REVOKED');
    });
  });

  it('npm run ops -- ca revoke: the operator revokes an issuing CA (root.crl lists it); the root is refused', async () => {
    const { tenant, ca } = await v2Tenant();
    const revoke = (caId: string) =>
      runOperatorCommand(sut, ['ca', 'revoke', tenant.tenantId, caId, '--reason', 'keyCompromise']);
    const root = await revoke(ca.caId);
    expect(root.code).toBe(1);
    expect(root.err).toEqual([
      expect.stringMatching(/^ops: ca revoke refused \(VALIDATION_FAILED\): .*caId is the root/),
    ]);
    const issuing = await revoke(ca.issuingCa!.caId);
    expect(issuing.code).toBe(0);
    const { serialNumber } = JSON.parse(issuing.out[0]) as { serialNumber: string };
    const { crl } = await eventuallyCrl(
      sut.pkiUrl,
      tenant.tenantId,
      (c) => c.entries.some((entry) => entry.serialNumberHex === serialNumber),
      'root.crl listing the issuing CA',
      'root.crl',
    );
    expect(crl.entries.map((entry) => entry.reasonCode)).toEqual([1]);
  });

  it.each([
    ['P-384', 'ecdsa-with-SHA384', 'ASN1 OID: secp384r1', 'P-256'],
    ['RSA-3072', 'sha256WithRSAEncryption', 'Public-Key: (3072 bit)', 'RSA-3072'],
  ])(
    'a %s tenant: CAs, CRL and OCSP answers signed with %s, leaves verify, leaf keys default to the CA family',
    async (keyAlgorithm, signature, caKey, leafKey) => {
      const { tenant, ca } = await v2Tenant({ keyAlgorithm });
      expect(ca.keyAlgorithm).toBe(keyAlgorithm);
      const issuingText = await opensslAsync([
        'x509',
        '-noout',
        '-text',
        '-in',
        file('issuing.pem', ca.issuingCa!.certificatePem),
      ]);
      expect(issuingText.stdout).toContain(`Signature Algorithm: ${signature}`);
      expect(issuingText.stdout).toContain(caKey);
      const leaf = (await tenant.issue(
        issueBody({ clientId: 'k', commonName: 'k' }),
        '/v2/certificates',
      )) as Issued;
      expect(await verify(ca.certificatePem, leaf)).toMatchObject({ status: 0 });
      const key = new X509Certificate(leaf.certificatePem).publicKey;
      expect(
        key.asymmetricKeyType === 'rsa'
          ? `RSA-${key.asymmetricKeyDetails!.modulusLength}`
          : key.asymmetricKeyDetails!.namedCurve,
      ).toBe(leafKey === 'P-256' ? 'prime256v1' : leafKey);
      // An explicit choice wins over the default.
      const p384 = (await tenant.issue(
        issueBody({ clientId: 'p', commonName: 'p', keyAlgorithm: 'P-384' }),
        '/v2/certificates',
      )) as Issued;
      expect(new X509Certificate(p384.certificatePem).publicKey.asymmetricKeyDetails!.namedCurve).toBe(
        'secp384r1',
      );
      const { der } = await eventuallyCrl(sut.pkiUrl, tenant.tenantId, () => true);
      const checked = await opensslAsync([
        'crl',
        '-inform',
        'DER',
        '-in',
        file('k.crl', der),
        '-CAfile',
        file('k-issuing.pem', ca.issuingCa!.certificatePem),
        '-noout',
      ]);
      expect(checked.stderr).toMatch(/verify OK/);
      // The OCSP signer's key follows the CA's (docs/api.md#key-algorithms): the answer is signed
      // with the CA's algorithm, by a signer of the CA's key type, and openssl verifies it.
      await eventually(
        () =>
          ocspStatus(
            sut.pkiUrl,
            tenant.tenantId,
            pemToDer(ca.issuingCa!.certificatePem),
            leaf.serialNumber,
          ).catch(() => undefined),
        15_000,
        'an OCSP signer for the tenant',
      );
      const ocsp = await opensslAsync([
        'ocsp',
        '-issuer',
        file('k-issuing.pem', ca.issuingCa!.certificatePem),
        '-cert',
        file('k-leaf.pem', leaf.certificatePem),
        '-url',
        `${sut.pkiUrl}/v1/tenants/${tenant.tenantId}/ocsp`,
        '-CAfile',
        file('k-root.pem', ca.certificatePem),
        '-verify_other',
        file('k-issuing.pem', ca.issuingCa!.certificatePem),
        '-resp_text',
      ]);
      expect(ocsp.stderr).toMatch(/Response verify OK/);
      expect(`${ocsp.stdout}`).toMatch(/: good/);
      const answerAlgorithms = [...ocsp.stdout.matchAll(/Signature Algorithm: (\S+)/g)].map((m) => m[1]);
      // The BasicOCSPResponse's and, in its certs, the signer certificate's (signed by the CA).
      expect(answerAlgorithms).toEqual([signature, signature, signature]);
      expect(ocsp.stdout).toContain(caKey);
    },
  );

  it('RootOnly: the root signs leaves, chainPem is empty, issuing-ca.pem and root.crl are 404', async () => {
    const { tenant, ca } = await v2Tenant({ hierarchy: 'RootOnly' });
    expect(ca.issuingCa).toBeUndefined();
    const leaf = (await tenant.issue(issueBody())) as Issued;
    expect(leaf.chainPem).toBe('');
    expect(await verify(ca.certificatePem, leaf)).toMatchObject({ status: 0 });
    expect((await http(`${sut.pkiUrl}/v1/tenants/${tenant.tenantId}/issuing-ca.pem`)).status).toBe(404);
    // Its leaves' CDP is /crl; a root that signs leaves has no CRL of its own.
    await eventuallyCrl(sut.pkiUrl, tenant.tenantId, () => true);
    expect((await http(`${sut.pkiUrl}/v1/tenants/${tenant.tenantId}/root.crl`)).status).toBe(404);
  });

  it('v1 tenants are unchanged: a root only, leaves with an empty chainPem, caIssuers ca.crt', async () => {
    const tenant = await createTenant(sut);
    const leaf = (await tenant.issue(issueBody())) as Issued;
    expect(leaf.chainPem).toBe('');
    expect(new X509Certificate(leaf.certificatePem).checkIssued(new X509Certificate(tenant.caPem))).toBe(
      true,
    );
    expect(new X509Certificate(leaf.certificatePem).infoAccess).toContain(
      `/v1/tenants/${tenant.tenantId}/ca.crt`,
    );
    const { cas } = (await tenant.get('/v2/ca')).json<{ cas: { role: string }[] }>();
    expect(cas.map(({ role }) => role)).toEqual(['root']);
    // v1 takes none of the v2 choices.
    const again = await createTenant(sut, { ca: false });
    const refused = await again.post('/v1/ca/initialize', {
      commonName: 'x',
      organization: 'y',
      country: 'US',
      validityYears: 1,
      hierarchy: 'RootAndIssuing',
    });
    expect(refused.status).toBe(400);
  });

  it.each([
    [{ hierarchy: 'Chain' }, 'hierarchy'],
    [{ keyAlgorithm: 'RSA-2048' }, 'keyAlgorithm'],
    [{ keyAlgorithm: 'P-521' }, 'keyAlgorithm'],
  ])('refuses %j with 400 naming the field', async (body, field) => {
    const tenant = await createTenant(sut, { ca: false });
    const answer = await tenant.post('/v2/ca/initialize', {
      commonName: 'x',
      organization: 'y',
      country: 'US',
      validityYears: 1,
      ...body,
    });
    expect(answer.status).toBe(400);
    expect(answer.headers.get('content-type')).toMatch(/problem\+json/);
    expect(answer.text).toContain(field);
  });

  it('a second v2 initialization is 409 and changes nothing', async () => {
    const { tenant } = await v2Tenant();
    const again = await tenant.post('/v2/ca/initialize', {
      commonName: 'x',
      organization: 'y',
      country: 'US',
      validityYears: 1,
    });
    expect(again.status).toBe(409);
    expect((await tenant.get('/v2/ca')).json<{ cas: unknown[] }>().cas).toHaveLength(2);
  });
});
