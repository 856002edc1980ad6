import 'reflect-metadata';
import { pemToDer } from '@ca/pki';
import { IssuedCertificate, TestTenant, createTenant, issueBody } from './support/admin-api';
import { eventually } from './support/http';
import { TempFiles, eventuallyCrl, ocspStatus, opensslAsync } from './support/pki';
import { SystemUnderTest, startSystemUnderTest, systemModes } from './support/system-under-test';

/**
 * docs/api.md#key-algorithms: a deployment that chose RSA-2048 (KEY_ALGORITHM,
 * docs/operations.md#configuration) makes RSA-2048 CAs and leaves from unchanged v1 requests, signs
 * with sha256WithRSAEncryption, and its CRL and OCSP answers verify with openssl.
 */
jest.setTimeout(60_000);

const RSA_2048 = 'Public-Key: (2048 bit)';
const RSA_SHA256 = 'Signature Algorithm: sha256WithRSAEncryption';

describe.each(systemModes('deployment key algorithm suite'))('KEY_ALGORITHM=RSA-2048 (%s)', (mode) => {
  let sut: SystemUnderTest;
  const files = new TempFiles();
  const openssl = async (args: string[]) => {
    const run = await opensslAsync(args);
    if (run.status !== 0) throw new Error(`openssl ${args[0]}: ${run.stderr}`);
    return run;
  };
  const text = async (name: string, pem: string) =>
    (await openssl(['x509', '-noout', '-text', '-in', files.write(name, pem)])).stdout;

  beforeAll(async () => {
    sut = await startSystemUnderTest(mode, { env: { KEY_ALGORITHM: 'RSA-2048' } });
  });

  afterAll(async () => {
    await sut?.stop();
    files.remove();
  });

  describe('a v1 tenant, v1 requests', () => {
    let tenant: TestTenant;
    let leaf: IssuedCertificate;

    beforeAll(async () => {
      tenant = await createTenant(sut);
      leaf = await tenant.issue(issueBody());
    });

    it('gets an RSA-2048 root and an RSA-2048 leaf, signed with sha256WithRSAEncryption, that openssl verifies', async () => {
      const root = await text('v1-root.pem', tenant.caPem);
      expect(root).toContain(RSA_2048);
      expect(root).toContain(RSA_SHA256);
      const certificate = await text('v1-leaf.pem', leaf.certificatePem);
      expect(certificate).toContain(RSA_2048);
      expect(certificate).toContain(RSA_SHA256);
      const leafFile = files.write('v1-leaf.pem', leaf.certificatePem);
      const verified = await openssl([
        'verify',
        '-x509_strict',
        '-CAfile',
        files.write('v1-root.pem', tenant.caPem),
        leafFile,
      ]);
      expect(verified.stdout.trim()).toBe(`${leafFile}: OK`);
      // The private key handed out is the certified one.
      const key = await openssl(['pkey', '-in', files.write('v1-leaf.key', leaf.privateKeyPem), '-pubout']);
      expect(key.stdout).toBe((await openssl(['x509', '-in', leafFile, '-noout', '-pubkey'])).stdout);
    });

    it("signs the tenant's CRL and OCSP answers with the root's RSA key; openssl verifies both", async () => {
      const rootFile = files.write('v1-root.pem', tenant.caPem);
      const { der } = await eventuallyCrl(sut.pkiUrl, tenant.tenantId, () => true);
      const crl = await openssl([
        'crl',
        '-inform',
        'DER',
        '-in',
        files.write('v1.crl', der),
        '-CAfile',
        rootFile,
        '-noout',
        '-text',
      ]);
      expect(crl.stderr).toMatch(/verify OK/);
      expect(crl.stdout).toContain(RSA_SHA256);
      await eventually(
        () =>
          ocspStatus(sut.pkiUrl, tenant.tenantId, pemToDer(tenant.caPem), leaf.serialNumber).catch(
            () => undefined,
          ),
        15_000,
        'an OCSP signer for the tenant',
      );
      const ocsp = await openssl([
        'ocsp',
        '-issuer',
        rootFile,
        '-cert',
        files.write('v1-leaf.pem', leaf.certificatePem),
        '-url',
        `${sut.pkiUrl}/v1/tenants/${tenant.tenantId}/ocsp`,
        '-CAfile',
        rootFile,
        '-resp_text',
      ]);
      expect(ocsp.stderr).toMatch(/Response verify OK/);
      expect(ocsp.stdout).toMatch(/: good/);
      // The answer's and its signer certificate's signatures; the signer's key is the CA's kind.
      expect([...ocsp.stdout.matchAll(/Signature Algorithm: (\S+)/g)].map((m) => m[1])).toEqual([
        'sha256WithRSAEncryption',
        'sha256WithRSAEncryption',
        'sha256WithRSAEncryption',
      ]);
      expect(ocsp.stdout).toContain(RSA_2048);
    });

    it('certifies the RSA-2048 key of a CSR for this RSA tenant', async () => {
      const csr = await openssl([
        'req',
        '-new',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        files.write('csr.key', ''),
        '-subj',
        '/CN=csr-client',
      ]);
      const answer = await tenant.post(
        '/v2/certificates',
        issueBody({ clientId: 'csr', csrPem: csr.stdout }),
      );
      expect(answer.status).toBe(200);
      expect(await text('csr-leaf.pem', answer.json<IssuedCertificate>().certificatePem)).toContain(RSA_2048);
    });
  });

  it('v2 without keyAlgorithm: an RSA-2048 root and issuing CA, leaves that verify through the chain', async () => {
    const tenant = await createTenant(sut, { ca: false });
    const answer = await tenant.post('/v2/ca/initialize', {
      commonName: 'Deployment Root',
      organization: 'Acme Corp',
      country: 'US',
      validityYears: 5,
    });
    expect(answer.status).toBe(200);
    const ca = answer.json<{
      keyAlgorithm: string;
      certificatePem: string;
      issuingCa: { certificatePem: string };
    }>();
    expect(ca.keyAlgorithm).toBe('RSA-2048');
    expect(await text('v2-issuing.pem', ca.issuingCa.certificatePem)).toContain(RSA_2048);
    const leaf = (await tenant.issue(issueBody(), '/v2/certificates')) as IssuedCertificate & {
      chainPem: string;
    };
    expect(await text('v2-leaf.pem', leaf.certificatePem)).toContain(RSA_2048);
    const leafFile = files.write('v2-leaf.pem', leaf.certificatePem);
    const verified = await openssl([
      'verify',
      '-x509_strict',
      '-CAfile',
      files.write('v2-root.pem', ca.certificatePem),
      '-untrusted',
      files.write('v2-chain.pem', leaf.chainPem),
      leafFile,
    ]);
    expect(verified.stdout.trim()).toBe(`${leafFile}: OK`);
  });

  it('an explicit P-256 tenant keeps P-256 leaves and refuses an RSA-2048 CSR', async () => {
    const tenant = await createTenant(sut, { ca: false });
    const answer = await tenant.post('/v2/ca/initialize', {
      commonName: 'EC Root',
      organization: 'Acme Corp',
      country: 'US',
      validityYears: 5,
      keyAlgorithm: 'P-256',
      hierarchy: 'RootOnly',
    });
    expect(answer.status).toBe(200);
    const leaf = await tenant.issue(issueBody());
    expect(await text('ec-leaf.pem', leaf.certificatePem)).toContain('ASN1 OID: prime256v1');
    const csr = await openssl([
      'req',
      '-new',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      files.write('ec-csr.key', ''),
      '-subj',
      '/CN=x',
    ]);
    const refused = await tenant.post('/v2/certificates', issueBody({ clientId: 'csr', csrPem: csr.stdout }));
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('CSR_KEY_NOT_ALLOWED');
  });
});
