import 'reflect-metadata';
import { X509Certificate } from 'node:crypto';
import * as tls from 'node:tls';
import { TestTenant, createTenant, issueBody } from './support/admin-api';
import { TempFiles } from './support/pki';
import { describeIfPrograms, runProgram } from './support/programs';
import { expectValidationProblem } from './support/problems';
import { SystemUnderTest, startSystemUnderTest, systemModes } from './support/system-under-test';

/**
 * The PKCS#12 of a passwordProtected answer, in each `pkcs12Profile`, opened by the programs people
 * load such files with: OpenSSL, GnuTLS certtool, Java's keytool and Node's TLS. Each opens it with
 * the password, finds the key and the certificate named by the certificate's CN, and refuses a wrong
 * password. A program that is not installed skips its part with a warning.
 */
jest.setTimeout(60_000);

const modes = systemModes('PKCS#12 clients suite');
const PROFILES = ['modern', 'legacy'] as const;
type Profile = (typeof PROFILES)[number];
const WRONG_PASSWORD = 'not-the-password';

interface Bundle {
  pfx: Buffer;
  password: string;
  file: string;
  commonName: string;
  certificatePem: string;
}

describe.each(modes)('PKCS#12 bundles in the clients that open them (%s)', (mode) => {
  let sut: SystemUnderTest;
  let tenant: TestTenant;
  const files = new TempFiles();
  const bundles = {} as Record<Profile, Bundle>;

  /** A v2 issue (or renew of `renewing`) with passwordProtected, in `profile`. */
  async function bundleOf(profile: Profile, commonName: string, renewing?: string): Promise<Bundle> {
    const answer = renewing
      ? await tenant.post(`/v2/certificates/${renewing}/renew`, {
          validityDays: 30,
          passwordProtected: true,
          pkcs12Profile: profile,
        })
      : await tenant.post(
          '/v2/certificates',
          issueBody({ clientId: commonName, commonName, passwordProtected: true, pkcs12Profile: profile }),
        );
    expect(answer.status).toBe(200);
    const { pfxBase64, password, certificatePem } = answer.json<{
      pfxBase64: string;
      password: string;
      certificatePem: string;
    }>();
    const pfx = Buffer.from(pfxBase64, 'base64');
    return { pfx, password, file: files.write(`${profile}.p12`, pfx), commonName, certificatePem };
  }

  beforeAll(async () => {
    sut = await startSystemUnderTest(mode);
    tenant = await createTenant(sut, { commonName: 'PKCS12 Clients Root' });
    bundles.modern = await bundleOf('modern', 'modern-keystore-client');
    // The legacy one through a renewal, so that both v2 bodies are seen to carry the field.
    const original = await tenant.issue(
      issueBody({ clientId: 'legacy', commonName: 'legacy-keystore-client' }),
      '/v2/certificates',
    );
    bundles.legacy = await bundleOf('legacy', 'legacy-keystore-client', original.certificateId);
  });

  afterAll(async () => {
    files.remove();
    await sut?.stop();
  });

  describe.each(PROFILES)('%s', (profile) => {
    it("opens in Node's TLS with the password and refuses a wrong one", () => {
      const { pfx, password } = bundles[profile];
      expect(() => tls.createSecureContext({ pfx, passphrase: password })).not.toThrow();
      expect(() => tls.createSecureContext({ pfx, passphrase: WRONG_PASSWORD })).toThrow(
        /mac verify failure|bad decrypt/i,
      );
    });

    // OpenSSL 3 reads 3DES without its legacy provider (only RC2 and RC4 need `-legacy`).
    describeIfPrograms(['openssl'], `${profile}: openssl pkcs12`, () => {
      it('opens it with the password: MAC, both bags, the key and the certificate named by the CN', async () => {
        const { file, password, commonName, certificatePem } = bundles[profile];
        const args = ['pkcs12', '-info', '-nodes', '-in', file, '-passin', `pass:${password}`];
        const opened = await runProgram('openssl', args);
        expect(opened.stderr).not.toMatch(/error/i);
        expect(opened.status).toBe(0);
        expect(opened.stderr).toMatch(
          profile === 'modern'
            ? /MAC: sha256, Iteration 2048\nMAC length: 32, salt length: 8\n/
            : /MAC: sha1, Iteration 2048\nMAC length: 20, salt length: 8\n/,
        );
        const algorithm =
          profile === 'modern'
            ? 'PBES2, PBKDF2, AES-256-CBC, Iteration 2048, PRF hmacWithSHA256'
            : 'pbeWithSHA1And3-KeyTripleDES-CBC, Iteration 2048';
        expect(opened.stderr).toContain(`PKCS7 Encrypted data: ${algorithm}\n`);
        expect(opened.stderr).toContain(`Shrouded Keybag: ${algorithm}\n`);
        expect(opened.stdout.match(new RegExp(`friendlyName: ${commonName}\\n`, 'g'))).toHaveLength(2);
        expect(opened.stdout).toMatch(/-----BEGIN PRIVATE KEY-----/);
        const leaf = opened.stdout.match(
          /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n/,
        )![0];
        expect(new X509Certificate(leaf).raw).toEqual(new X509Certificate(certificatePem).raw);
      });

      it('refuses a wrong password', async () => {
        const { file } = bundles[profile];
        const opened = await runProgram('openssl', [
          'pkcs12',
          '-info',
          '-in',
          file,
          '-passin',
          `pass:${WRONG_PASSWORD}`,
        ]);
        expect(opened.status).not.toBe(0);
        expect(opened.stderr).toMatch(/mac verify (failure|error)/i);
      });
    });

    describeIfPrograms(['certtool'], `${profile}: GnuTLS certtool --p12-info`, () => {
      it('opens it with the password: 8-octet salts, the key bag and the certificates named by the CN', async () => {
        const { file, password, commonName } = bundles[profile];
        const args = ['--p12-info', '--inder', '--password', password, '--infile', file];
        const opened = await runProgram('certtool', args);
        expect(opened.stderr).toBe('');
        expect(opened.status).toBe(0);
        expect(opened.stdout).toContain(`MAC: ${profile === 'modern' ? 'SHA256' : 'SHA1'}`);
        expect(opened.stdout).toMatch(/Cipher: (AES-256-CBC|3DES-CBC)/);
        expect([...opened.stdout.matchAll(/Salt size: (\d+)/g)].map((m) => m[1])).toEqual(['8', '8', '8']);
        expect(opened.stdout).toContain('Type: PKCS #8 Encrypted key');
        expect(opened.stdout.match(new RegExp(`Friendly name: ${commonName}\\n`, 'g'))).toHaveLength(2);
      });

      it('refuses a wrong password', async () => {
        const { file } = bundles[profile];
        const args = ['--p12-info', '--inder', '--password', WRONG_PASSWORD, '--infile', file];
        const opened = await runProgram('certtool', args);
        expect(opened.status).not.toBe(0);
        expect(opened.stderr).toMatch(/Message Authentication Code verification failed/);
      });
    });

    describeIfPrograms(['keytool'], `${profile}: Java keytool -list`, () => {
      it('lists one private-key entry, aliased by the CN, with its chain of two', async () => {
        const { file, password, commonName } = bundles[profile];
        const args = ['-list', '-v', '-storetype', 'PKCS12', '-keystore', file, '-storepass', password];
        const listed = await runProgram('keytool', args, { timeoutMs: 30_000 });
        expect(listed.status).toBe(0);
        expect(listed.stdout).toContain('Your keystore contains 1 entry');
        expect(listed.stdout).toContain(`Alias name: ${commonName}\n`);
        expect(listed.stdout).toContain('Entry type: PrivateKeyEntry\n');
        expect(listed.stdout).toContain('Certificate chain length: 2\n');
      });

      it('refuses a wrong password', async () => {
        const { file } = bundles[profile];
        const args = ['-list', '-storetype', 'PKCS12', '-keystore', file, '-storepass', WRONG_PASSWORD];
        const listed = await runProgram('keytool', args, { timeoutMs: 30_000 });
        expect(listed.status).not.toBe(0);
        expect(listed.stdout + listed.stderr).toMatch(/password was incorrect/);
      });
    });
  });

  describe('the pkcs12Profile field', () => {
    it('defaults to modern (PBES2)', async () => {
      const answer = await tenant.post('/v2/certificates', issueBody({ passwordProtected: true }));
      expect(answer.status).toBe(200);
      const pfx = Buffer.from(answer.json<{ pfxBase64: string }>().pfxBase64, 'base64');
      const pbes2 = Buffer.from('06092a864886f70d01050d', 'hex'); // OID 1.2.840.113549.1.5.13
      expect(pfx.includes(pbes2)).toBe(true);
    });

    it('is ignored without passwordProtected: no PKCS#12 is made', async () => {
      const answer = await tenant.post('/v2/certificates', issueBody({ pkcs12Profile: 'legacy' }));
      expect(answer.status).toBe(200);
      expect(answer.json()).not.toHaveProperty('pfxBase64');
    });

    it('refuses any other value with 400 on pkcs12Profile, on issue and on renew', async () => {
      const issued = await tenant.issue(issueBody(), '/v2/certificates');
      for (const value of ['Legacy', 'MODERN', 'des', '', 3]) {
        const body = issueBody({ passwordProtected: true, pkcs12Profile: value });
        expectValidationProblem(await tenant.post('/v2/certificates', body), ['pkcs12Profile']);
        expectValidationProblem(
          await tenant.post(`/v2/certificates/${issued.certificateId}/renew`, {
            validityDays: 30,
            passwordProtected: true,
            pkcs12Profile: value,
          }),
          ['pkcs12Profile'],
        );
      }
    });

    it('is a v2 field: v1 issue and renew refuse it as unknown', async () => {
      const issued = await tenant.issue(issueBody());
      const body = { passwordProtected: true, pkcs12Profile: 'legacy' };
      expectValidationProblem(await tenant.post('/v1/certificates', issueBody(body)), ['pkcs12Profile']);
      expectValidationProblem(
        await tenant.post(`/v1/certificates/${issued.certificateId}/renew`, { validityDays: 30, ...body }),
        ['pkcs12Profile'],
      );
    });
  });
});
