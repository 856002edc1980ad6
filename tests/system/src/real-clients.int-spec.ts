import 'reflect-metadata';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { derToPem } from '@ca/pki';
import { IssuedCertificate, TestTenant, createTenant, issueBody } from './support/admin-api';
import { eventually, freePorts } from './support/http';
import { startNginx, httpsGet } from './support/nginx';
import { eventuallyCrl, eventuallyRevokedInOcsp } from './support/pki';
import { describeIfPrograms, runProgram } from './support/programs';
import { SystemUnderTest, startSystemUnderTest, systemModes } from './support/system-under-test';

/**
 * The clients users run, on certificates this system issued, reaching its public surface by the
 * URLs written into those certificates (PKI_PUBLIC_URL is the system's real address here):
 * nginx verifying client certificates by OCSP and by the served CRL, nginx stapling our OCSP
 * response for a must-staple server certificate, Java's PKIX validator following the AIA and
 * CDP extensions, and GnuTLS's ocsptool asking our responder and verifying its answers. Each part skips, with a warning, when its program is not installed.
 */
jest.setTimeout(60_000);

const modes = systemModes('real clients suite');

describe.each(modes)('real clients on issued certificates (%s)', (mode) => {
  let sut: SystemUnderTest;
  let tenant: TestTenant;
  let dir: string;
  let good: IssuedCertificate;
  let revoked: IssuedCertificate;
  /** A v2 Server certificate for localhost with must-staple (RFC 7633). */
  let server: IssuedCertificate;
  const file = (name: string, content: string) => {
    const path = join(dir, name);
    writeFileSync(path, content, { mode: 0o600 });
    return path;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ca-real-clients-'));
    sut = await startSystemUnderTest(mode);
    tenant = await createTenant(sut, { commonName: 'Real Clients Root' });
    good = await tenant.issue(issueBody({ clientId: 'good-client', commonName: 'good-client' }));
    revoked = await tenant.issue(issueBody({ clientId: 'lost-laptop', commonName: 'lost-laptop' }));
    server = await tenant.issue(
      issueBody({
        clientId: 'web',
        commonName: 'localhost',
        usage: 'Server',
        subjectAlternativeNames: ['localhost'],
        mustStaple: true,
        validityDays: 30,
      }),
      '/v2/certificates',
    );
    const answer = await tenant.post(`/v1/certificates/${revoked.certificateId}/revoke`, {
      reason: 'laptop lost',
      reasonCode: 'KeyCompromise',
    });
    expect(answer.status).toBe(200);
    await eventuallyRevokedInOcsp(sut.pkiUrl, tenant.tenantId, tenant.caDer, revoked.serialNumber);
  });

  afterAll(async () => {
    await sut?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** nginx requiring a client certificate of the tenant CA, plus the given revocation directives. */
  async function mtlsNginx(name: string, revocation: string) {
    const prefix = join(dir, name);
    return startNginx(
      prefix,
      `    ssl_certificate ${file('server.pem', server.certificatePem)};
    ssl_certificate_key ${file('server.key', server.privateKeyPem)};
    ssl_client_certificate ${file('ca.pem', tenant.caPem)};
    ssl_verify_client on;
${revocation}
    location / { return 200 "hello $ssl_client_s_dn\\n"; }`,
    );
  }

  const client = (certificate: IssuedCertificate) => ({
    caPem: tenant.caPem,
    certificatePem: certificate.certificatePem,
    privateKeyPem: certificate.privateKeyPem,
  });

  describeIfPrograms(['nginx'], 'nginx as an mTLS server', () => {
    it('with ssl_ocsp asking our responder: 200 for a valid client certificate, 400 for a revoked one', async () => {
      const nginx = await mtlsNginx(
        'ocsp',
        `    ssl_ocsp on;
    ssl_ocsp_responder ${sut.pkiUrl}/v1/tenants/${tenant.tenantId}/ocsp;`,
      );
      try {
        const ok = await httpsGet(nginx.port, client(good));
        expect(ok).toEqual({ status: 200, body: expect.stringContaining('CN=good-client') });
        const refused = await httpsGet(nginx.port, client(revoked));
        expect(refused.status).toBe(400);
        expect(refused.body).toContain('SSL certificate error');
        expect(nginx.errorLog()).toMatch(/certificate revoked/);
        // No client certificate at all is refused too (ssl_verify_client on).
        expect((await httpsGet(nginx.port, { caPem: tenant.caPem })).status).toBe(400);
      } finally {
        await nginx.stop();
      }
    });

    it('with ssl_crl holding the served CRL: 200 for a valid client certificate, 400 for a revoked one', async () => {
      const { der } = await eventuallyCrl(
        sut.pkiUrl,
        tenant.tenantId,
        (crl) => crl.entries.some((entry) => entry.serialNumberHex === revoked.serialNumber),
        'the CRL listing the revoked certificate',
      );
      const nginx = await mtlsNginx('crl', `    ssl_crl ${file('tenant.crl', derToPem(der, 'X509 CRL'))};`);
      try {
        expect((await httpsGet(nginx.port, client(good))).status).toBe(200);
        expect((await httpsGet(nginx.port, client(revoked))).status).toBe(400);
        expect(nginx.errorLog()).toMatch(/certificate revoked/);
      } finally {
        await nginx.stop();
      }
    });
  });

  describeIfPrograms(['nginx', 'openssl'], 'nginx stapling our OCSP response', () => {
    it('staples a verifying, successful "good" response for a must-staple server certificate, found by its AIA', async () => {
      const caFile = file('ca.pem', tenant.caPem);
      const nginx = await startNginx(
        join(dir, 'stapling'),
        `    ssl_certificate ${file('server.pem', server.certificatePem)};
    ssl_certificate_key ${file('server.key', server.privateKeyPem)};
    ssl_stapling on;
    ssl_stapling_verify on;
    ssl_trusted_certificate ${caFile};
    location / { return 200 "stapled\\n"; }`,
      );
      try {
        // nginx fetches the staple lazily: the first handshakes go out without one.
        const stapled = await eventually(
          async () => {
            const run = await runProgram('openssl', [
              's_client',
              '-connect',
              `127.0.0.1:${nginx.port}`,
              '-servername',
              'localhost',
              '-status',
              '-CAfile',
              caFile,
            ]);
            return run.stdout.includes('OCSP Response Status: successful') ? run.stdout : undefined;
          },
          15_000,
          `a stapled OCSP response (nginx log: ${nginx.errorLog()})`,
        );
        expect(stapled).toContain('Cert Status: good');
        expect(stapled).toContain('Verify return code: 0 (ok)');
        expect(stapled.match(/Serial Number: (\w+)/)?.[1]).toBe(server.serialNumber.toUpperCase());
      } finally {
        await nginx.stop();
      }
    });
  });

  describeIfPrograms(['java', 'javac'], "Java's PKIX validator with PKIXRevocationChecker", () => {
    let classes: string;

    beforeAll(async () => {
      classes = join(dir, 'classes');
      const compiled = await runProgram(
        'javac',
        ['-d', classes, join(__dirname, 'support', 'PkixCheck.java')],
        {
          timeoutMs: 40_000,
        },
      );
      expect(compiled.stderr).toBe('');
    });

    const pkixCheck = (leaf: IssuedCertificate, ocspOverride?: string) =>
      runProgram('java', [
        '-Dcom.sun.security.enableCRLDP=true',
        '-cp',
        classes,
        'PkixCheck',
        file('ca.pem', tenant.caPem),
        file(`${leaf.serialNumber}.pem`, leaf.certificatePem),
        ...(ocspOverride ? [ocspOverride] : []),
      ]);

    it('accepts a valid certificate and rejects a revoked one, by the URLs in the certificates', async () => {
      const [accepted, rejected] = await Promise.all([pkixCheck(good), pkixCheck(revoked)]);
      expect(accepted).toMatchObject({ status: 0, stdout: 'VALID\n' });
      expect(rejected.status).toBe(1);
      expect(rejected.stdout).toMatch(/^INVALID REVOKED: Certificate has been revoked/);
      expect(rejected.stdout).toMatch(/KEY_COMPROMISE/);
    });

    it('falls back to the CRL of the CDP when OCSP cannot be reached', async () => {
      const [deadPort] = await freePorts(1);
      const dead = `http://127.0.0.1:${deadPort}/ocsp`;
      const [accepted, rejected] = await Promise.all([pkixCheck(good, dead), pkixCheck(revoked, dead)]);
      expect(accepted).toMatchObject({ status: 0, stdout: 'VALID\n' });
      expect(rejected.status).toBe(1);
      expect(rejected.stdout).toMatch(/^INVALID REVOKED: Certificate has been revoked/);
    });
  });

  describeIfPrograms(['ocsptool'], 'GnuTLS ocsptool', () => {
    const ocspUrl = () => `${sut.pkiUrl}/v1/tenants/${tenant.tenantId}/ocsp`;

    /** `ocsptool --ask`: builds the request, posts it, verifies the answer against the issuer. */
    async function ask(leaf: IssuedCertificate) {
      const response = join(dir, `ocsptool-${leaf.serialNumber}.der`);
      const run = await runProgram('ocsptool', [
        `--ask=${ocspUrl()}`,
        '--load-issuer',
        file('ca.pem', tenant.caPem),
        '--load-cert',
        file(`${leaf.serialNumber}.pem`, leaf.certificatePem),
        '--outfile',
        response,
      ]);
      return { ...run, out: `${run.stdout}\n${run.stderr}`, response };
    }

    /** `ocsptool -e` on a saved response: verified with the tenant CA as trust anchor. */
    const verifySaved = (response: string) =>
      runProgram('ocsptool', ['-e', '--load-trust', file('ca.pem', tenant.caPem), '--infile', response]);

    it('asks about a good and a revoked certificate and verifies both answers with the CA', async () => {
      const [goodRun, revokedRun] = [await ask(good), await ask(revoked)];
      expect({ status: goodRun.status, out: goodRun.out }).toEqual({
        status: 0,
        out: expect.stringMatching(/Certificate Status: good/),
      });
      expect(goodRun.out).toMatch(/Verifying OCSP Response: Success/);
      expect(revokedRun.out).toMatch(/Certificate Status: revoked/);
      expect(revokedRun.out).toMatch(/Verifying OCSP Response: Success/);
      for (const saved of [goodRun.response, revokedRun.response]) {
        const verified = await verifySaved(saved);
        expect({ status: verified.status, out: `${verified.stdout}${verified.stderr}` }).toEqual({
          status: 0,
          out: expect.stringMatching(/Verifying OCSP Response: Success/),
        });
      }
    });
  });
});
