import 'reflect-metadata';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, createServer } from 'node:tls';
import { derToPem, parseCertificate, pemToDer } from '@ca/pki';
import { IssuedCertificate, TestTenant, createTenant, issueBody } from './support/admin-api';
import { http } from './support/http';
import { eventuallyCrl, eventuallyRevokedInOcsp, ocspStatus, opensslAsync } from './support/pki';
import { runOperatorCommand } from './support/operator';
import { describeIfPrograms, hasProgram, runProgram } from './support/programs';
import { SystemUnderTest, startSystemUnderTest, systemModes } from './support/system-under-test';

/**
 * docs/api.md#renew-the-root: POST /v2/ca/root/renew makes a new root, a cross certificate the old
 * root signs for it and a new issuing CA under it. Leaves issued before verify with the old root;
 * leaves issued after verify with the old root (through the cross certificate in chainPem) and
 * with the new one, by openssl and by Node's TLS; the old root keeps its CRL and OCSP, the new one
 * gets its own; GET /v2/ca shows the old root retired.
 */
jest.setTimeout(180_000);

type Issued = IssuedCertificate & { chainPem: string };
interface Renewed {
  caId: string;
  certificatePem: string;
  expiresAt: string;
  keyAlgorithm: string;
  crossCertificatePem: string;
  retiredRootCaId: string;
  issuingCa: { caId: string; certificatePem: string; chainPem: string; expiresAt: string };
  retiredCaId?: string;
}
interface CaRow {
  caId: string;
  role: string;
  state: string;
  serialNumber: string;
  subject: string;
  keyAlgorithm: string;
  certificatePem: string;
  crossCertificatePem?: string;
}

const certtoolAvailable = hasProgram('certtool');
if (!certtoolAvailable)
  process.stderr.write('root renewal: the GnuTLS check is skipped, certtool not installed\n');
const javaAvailable = hasProgram('java') && hasProgram('javac');
if (!javaAvailable)
  process.stderr.write('root renewal: the Java PKIX check is skipped, java not installed\n');

describeIfPrograms(['openssl'], 'root renewal', () => {
  describe.each(systemModes('root renewal suite'))('(%s)', (mode) => {
    let sut: SystemUnderTest;
    let dir: string;
    const file = (name: string, content: string | Uint8Array) => {
      const path = join(dir, name);
      writeFileSync(path, content, { mode: 0o600 });
      return path;
    };
    /** `openssl verify -x509_strict` of a leaf with its chainPem, trusting only `anchorPem`. */
    const verify = (anchorPem: string, leaf: Issued) =>
      opensslAsync([
        'verify',
        '-x509_strict',
        '-CAfile',
        file('anchor.pem', anchorPem),
        ...(leaf.chainPem ? ['-untrusted', file('chain.pem', leaf.chainPem)] : []),
        file('leaf.pem', leaf.certificatePem),
      ]);
    const cas = async (tenant: TestTenant) => (await tenant.get('/v2/ca')).json<{ cas: CaRow[] }>().cas;
    const v2Tenant = async (body: Record<string, unknown> = {}) => {
      const tenant = await createTenant(sut, { ca: false });
      const init = await tenant.post('/v2/ca/initialize', {
        commonName: 'Partner Root',
        organization: 'Acme Corp',
        country: 'US',
        validityYears: 5,
        ...body,
      });
      expect(init.status).toBe(200);
      return {
        tenant,
        init: init.json<{
          caId: string;
          certificatePem: string;
          issuingCa: { caId: string; certificatePem: string };
        }>(),
      };
    };
    const serverBody = (clientId: string) =>
      issueBody({
        clientId,
        commonName: 'localhost',
        usage: 'ClientAndServer',
        subjectAlternativeNames: ['localhost'],
        validityDays: 30,
      });

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'root-renewal-'));
      sut = await startSystemUnderTest(mode, { shippedBus: true });
    });

    afterAll(async () => {
      await sut?.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    describe('a v2 tenant renews its root', () => {
      let tenant: TestTenant;
      let oldRootPem: string;
      let oldRootId: string;
      let oldIssuing: { caId: string; certificatePem: string };
      let leafA: Issued;
      let renewed: Renewed;
      let leafB: Issued;

      beforeAll(async () => {
        const made = await v2Tenant();
        tenant = made.tenant;
        oldRootPem = made.init.certificatePem;
        oldRootId = made.init.caId;
        oldIssuing = made.init.issuingCa;
        leafA = (await tenant.issue(serverBody('before'), '/v2/certificates')) as Issued;
        const answer = await tenant.post('/v2/ca/root/renew', {});
        expect(answer.status).toBe(201);
        renewed = answer.json<Renewed>();
        leafB = (await tenant.issue(serverBody('after'), '/v2/certificates')) as Issued;
      });

      it('answers a new root (same subject, new key, no pathlen), its cross certificate and a new issuing CA', async () => {
        expect(renewed).toMatchObject({
          keyAlgorithm: 'P-256',
          retiredRootCaId: oldRootId,
          retiredCaId: oldIssuing.caId,
        });
        const oldRoot = new X509Certificate(oldRootPem);
        const newRoot = new X509Certificate(renewed.certificatePem);
        const cross = new X509Certificate(renewed.crossCertificatePem);
        // The same subject: docs/api.md#renew-the-root says why; keys and serials differ.
        expect(newRoot.subject).toBe(oldRoot.subject);
        expect(newRoot.serialNumber).not.toBe(oldRoot.serialNumber);
        expect(newRoot.verify(newRoot.publicKey)).toBe(true);
        expect(newRoot.verify(oldRoot.publicKey)).toBe(false);
        // The cross certificate: the new root's subject and key, issued and signed by the old root.
        expect(cross.subject).toBe(newRoot.subject);
        expect(cross.issuer).toBe(oldRoot.subject);
        expect(cross.verify(oldRoot.publicKey)).toBe(true);
        expect(cross.publicKey.export({ type: 'spki', format: 'der' })).toEqual(
          newRoot.publicKey.export({ type: 'spki', format: 'der' }),
        );
        const crossInfo = parseCertificate(pemToDer(renewed.crossCertificatePem));
        const newInfo = parseCertificate(pemToDer(renewed.certificatePem));
        const oldInfo = parseCertificate(pemToDer(oldRootPem));
        expect(crossInfo.subjectKeyIdentifierHex).toBe(newInfo.subjectKeyIdentifierHex);
        expect(crossInfo.authorityKeyIdentifierHex).toBe(oldInfo.subjectKeyIdentifierHex);
        expect(crossInfo.notAfter.getTime()).toBeLessThanOrEqual(oldInfo.notAfter.getTime());
        const base = `/v1/tenants/${tenant.tenantId}`;
        expect(crossInfo.crlDistributionPointUrls).toEqual([`${sut.pkiUrl}${base}/ca/${oldRootId}/crl`]);
        const text = (pem: string, name: string) =>
          opensslAsync(['x509', '-noout', '-text', '-in', file(name, pem)]).then((r) => r.stdout);
        // Roots and the cross certificate carry no pathLenConstraint (GnuTLS counts the
        // self-issued cross certificate, RFC 5280 does not); the issuing CA's 0 bounds the depth.
        for (const [pem, name] of [
          [renewed.crossCertificatePem, 'cross.pem'],
          [renewed.certificatePem, 'new-root.pem'],
          [oldRootPem, 'old-root.pem'],
        ])
          expect(await text(pem, name)).toMatch(/CA:TRUE(?!, pathlen)/);
        // The new issuing CA names the new root's own paths.
        const issuing = parseCertificate(pemToDer(renewed.issuingCa.certificatePem));
        expect(issuing.crlDistributionPointUrls).toEqual([`${sut.pkiUrl}${base}/ca/${renewed.caId}/crl`]);
        expect(issuing.caIssuersUrls).toEqual([`${sut.pkiUrl}${base}/ca/${renewed.caId}.crt`]);
        expect(issuing.subject.commonName).toBe('Partner Root Issuing CA 2');
        expect(renewed.issuingCa.chainPem).toBe(
          renewed.issuingCa.certificatePem + renewed.crossCertificatePem,
        );
      });

      it('lists the old root and issuing CA retired, the new ones active, the cross certificate with the new root', async () => {
        const rows = await cas(tenant);
        expect(rows.map(({ caId, role, state }) => ({ caId, role, state }))).toEqual([
          { caId: oldRootId, role: 'root', state: 'retired' },
          { caId: renewed.caId, role: 'root', state: 'active' },
          { caId: oldIssuing.caId, role: 'issuing', state: 'retired' },
          { caId: renewed.issuingCa.caId, role: 'issuing', state: 'active' },
        ]);
        expect(rows[0].crossCertificatePem).toBeUndefined();
        expect(rows[1].crossCertificatePem).toBe(renewed.crossCertificatePem);
      });

      it('leaf A (before) verifies with the old root; leaf B (after) with the old root via the cross certificate and with the new root', async () => {
        expect(new X509Certificate(leafA.certificatePem).issuer).toBe(
          new X509Certificate(oldIssuing.certificatePem).subject,
        );
        expect(leafA.chainPem).toBe(oldIssuing.certificatePem);
        expect(await verify(oldRootPem, leafA)).toMatchObject({ status: 0 });
        // A partner on the new root only cannot validate an old leaf: it has another key.
        expect((await verify(renewed.certificatePem, leafA)).status).not.toBe(0);

        expect(new X509Certificate(leafB.certificatePem).issuer).toBe(
          new X509Certificate(renewed.issuingCa.certificatePem).subject,
        );
        expect(leafB.chainPem).toBe(renewed.issuingCa.chainPem);
        expect(await verify(oldRootPem, leafB)).toMatchObject({ status: 0 });
        expect(await verify(renewed.certificatePem, leafB)).toMatchObject({ status: 0 });
        // Without the cross certificate, the old root alone does not reach leaf B.
        const withoutCross = { ...leafB, chainPem: renewed.issuingCa.certificatePem };
        expect((await verify(oldRootPem, withoutCross)).status).not.toBe(0);
        // Get a certificate answers the same chain.
        const detail = (await tenant.get(`/v1/certificates/${leafB.certificateId}`)).json<{
          chainPem: string;
        }>();
        expect(detail.chainPem).toBe(leafB.chainPem);
      });

      it("Node's TLS: a client trusting only the old root and one trusting only the new root both accept leaf B's chain", async () => {
        const tlsServer = createServer(
          { cert: leafB.certificatePem + leafB.chainPem, key: leafB.privateKeyPem },
          (socket) => socket.end('hello'),
        );
        await new Promise<void>((resolve) => tlsServer.listen(0, '127.0.0.1', resolve));
        const port = (tlsServer.address() as { port: number }).port;
        const handshake = (anchorPem: string) =>
          new Promise<string>((resolve, reject) => {
            const socket = connect({ host: '127.0.0.1', port, servername: 'localhost', ca: anchorPem });
            let text = '';
            socket.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
            socket.once('end', () => resolve(text));
            socket.once('error', reject);
          });
        try {
          expect(await handshake(oldRootPem)).toBe('hello');
          expect(await handshake(renewed.certificatePem)).toBe('hello');
        } finally {
          await new Promise<void>((resolve) => tlsServer.close(() => resolve()));
        }
      });

      (certtoolAvailable ? it : it.skip)(
        'GnuTLS certtool accepts leaf B through the cross certificate to the old root, and to the new root',
        async () => {
          const gnutls = (anchorPem: string, name: string) =>
            runProgram('certtool', [
              '--verify',
              '--load-ca-certificate',
              file(name, anchorPem),
              '--infile',
              file('leaf-b-chain.pem', leafB.certificatePem + leafB.chainPem),
            ]);
          for (const [anchor, name] of [
            [oldRootPem, 'gnutls-old-root.pem'],
            [renewed.certificatePem, 'gnutls-new-root.pem'],
          ]) {
            const run = await gnutls(anchor, name);
            expect(run.stdout).toMatch(/Chain verification output: Verified\./);
            expect(run.status).toBe(0);
          }
        },
      );

      // Java PKIX with revocation on for every certificate of the path, each at the URLs its own
      // certificate names (OCSP for the leaf and the issuing CA, the old root's CRL for the cross
      // certificate, which has no OCSP URL).
      (javaAvailable ? it : it.skip)(
        'Java PKIX with revocation on accepts leaf B through the cross certificate to the old root, and to the new root',
        async () => {
          const classes = join(dir, 'classes');
          const compiled = await runProgram(
            'javac',
            ['-d', classes, join(__dirname, 'support', 'PkixCheck.java')],
            { timeoutMs: 40_000 },
          );
          expect(compiled.stderr).toBe('');
          const pkix = (anchorPem: string, pathPem: string) =>
            runProgram('java', [
              '-Dcom.sun.security.enableCRLDP=true',
              '-cp',
              classes,
              'PkixCheck',
              file('pkix-anchor.pem', anchorPem),
              file('pkix-path.pem', pathPem),
            ]);
          expect(await pkix(oldRootPem, leafB.certificatePem + leafB.chainPem)).toMatchObject({
            status: 0,
            stdout: 'VALID\n',
          });
          expect(
            await pkix(renewed.certificatePem, leafB.certificatePem + renewed.issuingCa.certificatePem),
          ).toMatchObject({ status: 0, stdout: 'VALID\n' });
        },
      );

      it('serves the new root, the cross certificate and the old root at their paths; ca.pem stays the old root', async () => {
        const base = `${sut.pkiUrl}/v1/tenants/${tenant.tenantId}`;
        const der = async (path: string) => {
          const answer = await http(`${base}/${path}`);
          expect(answer.status).toBe(200);
          return Buffer.from(answer.body);
        };
        expect(await der('ca.crt')).toEqual(Buffer.from(pemToDer(oldRootPem)));
        expect((await der('ca.pem')).toString()).toBe(oldRootPem);
        expect(await der(`ca/${oldRootId}.crt`)).toEqual(Buffer.from(pemToDer(oldRootPem)));
        expect(await der(`ca/${renewed.caId}.crt`)).toEqual(Buffer.from(pemToDer(renewed.certificatePem)));
        expect((await der(`ca/${renewed.caId}.pem`)).toString()).toBe(renewed.certificatePem);
        expect(await der(`ca/${renewed.caId}-cross.crt`)).toEqual(
          Buffer.from(pemToDer(renewed.crossCertificatePem)),
        );
        const crossPem = await http(`${base}/ca/${renewed.caId}-cross.pem`);
        expect(crossPem.headers.get('content-type')).toBe('application/x-pem-file');
        expect(Buffer.from(crossPem.body).toString()).toBe(renewed.crossCertificatePem);
        // issuing-ca.crt is what the old issuing CA's leaves name as caIssuers: still that CA.
        expect(await der('issuing-ca.crt')).toEqual(Buffer.from(pemToDer(oldIssuing.certificatePem)));
        // Only a renewed root has a cross certificate.
        expect((await http(`${base}/ca/${oldRootId}-cross.crt`)).status).toBe(404);
        expect((await http(`${base}/ca/${renewed.issuingCa.caId}-cross.pem`)).status).toBe(404);
      });

      it("keeps the old root's CRL and OCSP; the new root publishes its own CRL and answers OCSP for its issuing CA", async () => {
        // The old root: root.crl (its own path too), and OCSP good for its (retired) issuing CA.
        const { der: oldCrl } = await eventuallyCrl(
          sut.pkiUrl,
          tenant.tenantId,
          () => true,
          'root.crl',
          'root.crl',
        );
        const oldCrlText = await opensslAsync([
          'crl',
          '-in',
          file('old-root.crl.pem', derToPem(oldCrl, 'X509 CRL')),
          '-CAfile',
          file('old-root.pem', oldRootPem),
          '-noout',
        ]);
        expect(oldCrlText.stderr).toMatch(/verify OK/);
        expect(
          await ocspStatus(
            sut.pkiUrl,
            tenant.tenantId,
            pemToDer(oldRootPem),
            certificateSerial(oldIssuing.certificatePem),
          ),
        ).toMatchObject({ kind: 'good' });
        // The new root: its first CRL (empty), verified against the new root and not the old one.
        const { der: newCrl, crl } = await eventuallyCrl(
          sut.pkiUrl,
          tenant.tenantId,
          () => true,
          "the new root's CRL",
          `ca/${renewed.caId}/crl`,
        );
        expect(crl.entries).toEqual([]);
        const crlPem = file('new-root.crl.pem', derToPem(newCrl, 'X509 CRL'));
        const checked = await opensslAsync([
          'crl',
          '-in',
          crlPem,
          '-CAfile',
          file('nr.pem', renewed.certificatePem),
          '-noout',
        ]);
        expect(checked.stderr).toMatch(/verify OK/);
        const wrongKey = await opensslAsync([
          'crl',
          '-in',
          crlPem,
          '-CAfile',
          file('or.pem', oldRootPem),
          '-noout',
        ]);
        expect(wrongKey.stderr).not.toMatch(/verify OK/);
        // OCSP for the new issuing CA, asked of the new root: good; asked of the old root: unknown.
        const issuingSerial = certificateSerial(renewed.issuingCa.certificatePem);
        await expect(
          eventuallyGood(() =>
            ocspStatus(sut.pkiUrl, tenant.tenantId, pemToDer(renewed.certificatePem), issuingSerial),
          ),
        ).resolves.toMatchObject({ kind: 'good' });
        expect(
          await ocspStatus(sut.pkiUrl, tenant.tenantId, pemToDer(oldRootPem), issuingSerial),
        ).toMatchObject({
          kind: 'unknown',
        });
        // openssl checks the answer against the new root, the signer being certified by it.
        const ocsp = await opensslAsync([
          'ocsp',
          '-issuer',
          file('nr-issuer.pem', renewed.certificatePem),
          '-cert',
          file('new-issuing.pem', renewed.issuingCa.certificatePem),
          '-url',
          `${sut.pkiUrl}/v1/tenants/${tenant.tenantId}/ocsp`,
          '-CAfile',
          file('nr-anchor.pem', renewed.certificatePem),
        ]);
        expect(`${ocsp.stdout}${ocsp.stderr}`).toMatch(/: good/);
        expect(ocsp.stderr).toMatch(/Response verify OK/);
        // Leaves of each issuing CA keep answering through their own signer.
        expect(
          await ocspStatus(
            sut.pkiUrl,
            tenant.tenantId,
            pemToDer(oldIssuing.certificatePem),
            leafA.serialNumber,
          ),
        ).toMatchObject({ kind: 'good' });
        await expect(
          eventuallyGood(() =>
            ocspStatus(
              sut.pkiUrl,
              tenant.tenantId,
              pemToDer(renewed.issuingCa.certificatePem),
              leafB.serialNumber,
            ),
          ),
        ).resolves.toMatchObject({ kind: 'good' });
      });

      it("revoking the new issuing CA lands on the new root's CRL and in OCSP; the old root's CRL stays empty", async () => {
        const revoked = await tenant.post(`/v2/ca/${renewed.issuingCa.caId}/revoke`, {
          reason: 'key leaked',
          reasonCode: 'KeyCompromise',
        });
        expect(revoked.status).toBe(200);
        const serial = certificateSerial(renewed.issuingCa.certificatePem);
        const { der } = await eventuallyCrl(
          sut.pkiUrl,
          tenant.tenantId,
          (listed) => listed.entries.some((entry) => entry.serialNumberHex === serial),
          "the new root's CRL listing its revoked issuing CA",
          `ca/${renewed.caId}/crl`,
        );
        const crlPem = file('revoked.crl.pem', derToPem(der, 'X509 CRL'));
        const checked = await opensslAsync([
          'crl',
          '-in',
          crlPem,
          '-CAfile',
          file('nr2.pem', renewed.certificatePem),
          '-noout',
        ]);
        expect(checked.stderr).toMatch(/verify OK/);
        await eventuallyRevokedInOcsp(sut.pkiUrl, tenant.tenantId, pemToDer(renewed.certificatePem), serial);
        const rootCrl = await eventuallyCrl(sut.pkiUrl, tenant.tenantId, () => true, 'root.crl', 'root.crl');
        expect(rootCrl.crl.entries).toEqual([]);
        // Leaf B is refused by a whole-chain CRL check under the new root: its issuing CA is revoked.
        const { der: issuingCrl } = await eventuallyCrl(
          sut.pkiUrl,
          tenant.tenantId,
          () => true,
          "the new issuing CA's CRL",
          `ca/${renewed.issuingCa.caId}/crl`,
        );
        const crls = file('both.crl.pem', derToPem(issuingCrl, 'X509 CRL') + derToPem(der, 'X509 CRL'));
        const withCrls = (leaf: Issued) =>
          opensslAsync([
            'verify',
            '-crl_check_all',
            '-CAfile',
            file('nr3.pem', renewed.certificatePem),
            '-untrusted',
            file('b-chain.pem', renewed.issuingCa.certificatePem),
            '-CRLfile',
            crls,
            file('b.pem', leaf.certificatePem),
          ]);
        const refused = await withCrls(leafB);
        expect(refused.status).not.toBe(0);
        expect(`${refused.stdout}${refused.stderr}`).toMatch(/certificate revoked/);
        const refusedIssue = await tenant.post('/v2/certificates', issueBody({ validityDays: 10 }));
        expect(refusedIssue.status).toBe(409);
        expect((await cas(tenant)).find(({ caId }) => caId === renewed.issuingCa.caId)?.state).toBe(
          'revoked',
        );
      });

      it("revokes the cross certificate onto the old root's CRL (root.crl), so a relying party anchored on the old root refuses it; once only", async () => {
        const cross = file('cross-to-revoke.pem', renewed.crossCertificatePem);
        const anchoredOnOld = (crlDer: Uint8Array) =>
          opensslAsync([
            'verify',
            '-crl_check',
            '-CAfile',
            file('old-anchor.pem', oldRootPem),
            '-CRLfile',
            file('old-root-crl.pem', derToPem(crlDer, 'X509 CRL')),
            cross,
          ]);
        const before = await eventuallyCrl(sut.pkiUrl, tenant.tenantId, () => true, 'root.crl', 'root.crl');
        expect((await anchoredOnOld(before.der)).status).toBe(0);

        const path = `/v2/ca/${renewed.caId}/cross-certificate/revoke`;
        const body = { reason: 'new root key leaked', reasonCode: 'KeyCompromise' };
        const revoked = await tenant.post(path, body);
        expect(revoked.status).toBe(200);
        const serial = certificateSerial(renewed.crossCertificatePem);
        expect(revoked.json()).toEqual({
          caId: renewed.caId,
          serialNumber: serial,
          revokedAt: expect.any(String),
          published: true,
        });
        const after = await eventuallyCrl(
          sut.pkiUrl,
          tenant.tenantId,
          (crl) => crl.entries.some((entry) => entry.serialNumberHex === serial),
          'root.crl listing the cross certificate',
          'root.crl',
        );
        // The cross certificate's own CRL distribution point serves the same CRL.
        expect(parseCertificate(pemToDer(renewed.crossCertificatePem)).crlDistributionPointUrls).toEqual([
          `${sut.pkiUrl}/v1/tenants/${tenant.tenantId}/ca/${oldRootId}/crl`,
        ]);
        const refused = await anchoredOnOld(after.der);
        expect(`${refused.stdout}${refused.stderr}`).toMatch(/certificate revoked/);

        expect((await tenant.post(path, body)).status).toBe(409);
        const noCross = await tenant.post(`/v2/ca/${oldRootId}/cross-certificate/revoke`, body);
        expect(noCross.status).toBe(400);
        const readOnly = await tenant.post(path, body, {
          bearer: await tenant.tokenWithScope('certificates:write'),
        });
        expect(readOnly.status).toBe(403);
      });
    });

    it('renews a v1 (root-only) tenant with another key algorithm; renews again; add-issuing after renewal stays under the new root', async () => {
      const tenant = await createTenant(sut, { validityYears: 3 });
      const before = (await tenant.issue(issueBody({ validityDays: 10 }))) as Issued;
      const first = await tenant.post('/v2/ca/root/renew', { keyAlgorithm: 'P-384', validityYears: 4 });
      expect(first.status).toBe(201);
      const root2 = first.json<Renewed>();
      expect(root2.retiredCaId).toBeUndefined();
      expect(root2.keyAlgorithm).toBe('P-384');
      expect(new Date(root2.expiresAt).getUTCFullYear()).toBe(new Date().getUTCFullYear() + 4);
      expect(await verify(tenant.caPem, before)).toMatchObject({ status: 0 });
      const after = (await tenant.issue(issueBody({ validityDays: 10 }), '/v2/certificates')) as Issued;
      expect(await verify(tenant.caPem, after)).toMatchObject({ status: 0 });
      expect(await verify(root2.certificatePem, after)).toMatchObject({ status: 0 });

      // A second renewal: the chain carries both cross certificates, so the first root still validates.
      const second = await tenant.post('/v2/ca/root/renew', {});
      expect(second.status).toBe(201);
      const root3 = second.json<Renewed>();
      expect(root3).toMatchObject({
        keyAlgorithm: 'P-384',
        retiredRootCaId: root2.caId,
        retiredCaId: root2.issuingCa.caId,
      });
      const latest = (await tenant.issue(issueBody({ validityDays: 10 }), '/v2/certificates')) as Issued;
      expect(latest.chainPem).toBe(
        root3.issuingCa.certificatePem + root3.crossCertificatePem + root2.crossCertificatePem,
      );
      for (const anchor of [tenant.caPem, root2.certificatePem, root3.certificatePem]) {
        expect(await verify(anchor, latest)).toMatchObject({ status: 0 });
      }

      // A rollover after the renewal: under the newest root, at its paths, with the cross chain.
      const rolled = await tenant.post('/v2/ca/issuing', {});
      expect(rolled.status).toBe(201);
      const added = rolled.json<{ caId: string; certificatePem: string; chainPem: string }>();
      expect(
        new X509Certificate(added.certificatePem).verify(new X509Certificate(root3.certificatePem).publicKey),
      ).toBe(true);
      const addedInfo = parseCertificate(pemToDer(added.certificatePem));
      expect(addedInfo.caIssuersUrls[0]).toMatch(new RegExp(`/ca/${root3.caId}\\.crt$`));
      expect(addedInfo.crlDistributionPointUrls[0]).toMatch(new RegExp(`/ca/${root3.caId}/crl$`));
      expect(added.chainPem).toBe(
        added.certificatePem + root3.crossCertificatePem + root2.crossCertificatePem,
      );
      const rows = await cas(tenant);
      expect(rows.filter(({ role }) => role === 'root').map(({ state }) => state)).toEqual([
        'retired',
        'retired',
        'active',
      ]);
    });

    it('refuses without a CA (404), without the scope (403), a bad body (400); concurrent renewals: one wins, the other 409', async () => {
      const none = await createTenant(sut, { ca: false });
      const missing = await none.post('/v2/ca/root/renew', {});
      expect(missing.status).toBe(404);
      expect(missing.json<{ code: string }>().code).toBe('NOT_FOUND');
      expect(await cas(none)).toEqual([]);

      const { tenant } = await v2Tenant();
      const badAlgorithm = await tenant.post('/v2/ca/root/renew', { keyAlgorithm: 'P-521' });
      expect(badAlgorithm.status).toBe(400);
      expect(badAlgorithm.json<{ code: string }>().code).toBe('VALIDATION_FAILED');
      expect((await tenant.post('/v2/ca/root/renew', { validityYears: 31 })).status).toBe(400);
      const readOnly = await tenant.post(
        '/v2/ca/root/renew',
        {},
        { bearer: await tenant.tokenWithScope('certificates:write') },
      );
      expect(readOnly.status).toBe(403);
      expect((await cas(tenant)).map(({ role, state }) => `${role}:${state}`)).toEqual([
        'root:active',
        'issuing:active',
      ]);

      const both = await Promise.all([
        tenant.post('/v2/ca/root/renew', {}),
        tenant.post('/v2/ca/root/renew', {}),
      ]);
      expect(both.map(({ status }) => status).sort()).toEqual([201, 409]);
      expect((await cas(tenant)).map(({ role, state }) => `${role}:${state}`)).toEqual([
        'root:retired',
        'root:active',
        'issuing:retired',
        'issuing:active',
      ]);
    });

    it('npm run ops -- ca renew-root renews the root and prints one JSON line; a tenant without a CA exits 1', async () => {
      const { tenant, init } = await v2Tenant();
      const renewedByOps = await runOperatorCommand(sut, ['ca', 'renew-root', tenant.tenantId]);
      expect(renewedByOps.code).toBe(0);
      const printed = JSON.parse(renewedByOps.out[0]) as Record<string, string>;
      expect(printed).toMatchObject({ retiredRootCaId: init.caId, retiredCaId: init.issuingCa.caId });
      const rows = await cas(tenant);
      expect(rows.find(({ caId }) => caId === printed.caId)).toMatchObject({
        role: 'root',
        state: 'active',
      });
      expect(rows.find(({ caId }) => caId === printed.issuingCaId)).toMatchObject({ state: 'active' });

      const none = await createTenant(sut, { ca: false });
      const refused = await runOperatorCommand(sut, ['ca', 'renew-root', none.tenantId]);
      expect(refused.code).toBe(1);
      expect(refused.err).toEqual([expect.stringMatching(/^ops: ca renew-root refused \(NOT_FOUND\)/)]);
    });
  });
});

function certificateSerial(pem: string): string {
  return parseCertificate(pemToDer(pem)).serialNumberHex;
}

/** The OCSP signer of a new CA is made in the background: ask again (≤ 10 s) while it is not there. */
async function eventuallyGood<T>(ask: () => Promise<T>): Promise<T> {
  const until = Date.now() + 10_000;
  for (;;) {
    try {
      return await ask();
    } catch (error) {
      if (Date.now() > until) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}
