import 'reflect-metadata';
import { X509Certificate, createPublicKey } from 'node:crypto';
import { derToPem, exportSpkiDer, generateEcKeyPair, pemToDer } from '@ca/pki';
import { buildTestCsr, describeIfOpenssl, runOpenssl, withBrokenSignature } from '@ca/pki/testing';
import { TestTenant, adminRequest, createTenant, issueBody } from './support/admin-api';
import { HttpAnswer } from './support/http';
import { TempFiles } from './support/pki';
import { expectProblem, expectValidationProblem } from './support/problems';
import { SystemUnderTest, startSystemUnderTest, systemModes } from './support/system-under-test';

/**
 * CSR issuance (docs/api.md#csr-issuance) over HTTP: `csrPem` on v2 issue and renew with requests
 * made by the openssl CLI and by Node (PKI.js); the certificate certifies the CSR's key and the
 * request's names, never the CSR's; no private key in the answer; broken, foreign-key and malformed
 * requests refused with their codes; renewal of a CSR certificate needs a CSR.
 */
jest.setTimeout(60_000);

const modes = systemModes('CSR issuance suite');

const serverBody = (overrides: Record<string, unknown> = {}) =>
  issueBody({
    clientId: 'edge-proxy',
    commonName: 'api.example.com',
    usage: 'Server',
    subjectAlternativeNames: ['api.example.com', 'www.example.com'],
    validityDays: 90,
    ...overrides,
  });

/** DER SubjectPublicKeyInfo of a certificate, to compare with the CSR's key. */
const certificateSpki = (pem: string) =>
  new X509Certificate(pem).publicKey.export({ type: 'spki', format: 'der' });

/** A P-256 CSR made by PKI.js, with the SPKI of its key. */
async function nodeCsr(commonName = 'node-client'): Promise<{ csrPem: string; spki: Buffer }> {
  const keys = await generateEcKeyPair(false);
  const der = await buildTestCsr(keys, commonName);
  return {
    csrPem: derToPem(der, 'CERTIFICATE REQUEST'),
    spki: Buffer.from(await exportSpkiDer(keys.publicKey)),
  };
}

describe.each(modes)('CSR issuance over HTTP (%s)', (mode) => {
  let sut: SystemUnderTest;
  let tenant: TestTenant;

  beforeAll(async () => {
    sut = await startSystemUnderTest(mode);
    tenant = await createTenant(sut, { commonName: 'CSR Test Root' });
  });

  afterAll(async () => {
    await sut?.stop();
  });

  const issued = (answer: HttpAnswer) => {
    expect(answer.status).toBe(200);
    const body = answer.json<Record<string, string>>();
    expect(body).not.toHaveProperty('privateKeyPem');
    expect(body).not.toHaveProperty('privateKeyDownloadUrl');
    // Every answer with certificatePem has chainPem: empty, as this tenant's root signs leaves.
    expect(body.chainPem).toBe('');
    return body;
  };

  it('certifies the key of a PKI.js request, and answers no private key', async () => {
    const { csrPem, spki } = await nodeCsr();
    const body = issued(await tenant.post('/v2/certificates', issueBody({ csrPem })));
    expect(body.certificateId).toEqual(expect.any(String));
    expect(certificateSpki(body.certificatePem)).toEqual(spki);
    expect(new X509Certificate(body.certificatePem).subject).toContain('CN=payments-client');
    const detail = (await tenant.get(`/v1/certificates/${body.certificateId}`)).json<{ status: string }>();
    expect(detail.status).toBe('Active');
  });

  it('refuses a request whose signature does not verify, and stores nothing', async () => {
    const keys = await generateEcKeyPair(false);
    const broken = withBrokenSignature(await buildTestCsr(keys));
    const before = (await tenant.get('/v1/certificates')).json<{ certificates: unknown[] }>().certificates
      .length;
    const answer = await tenant.post(
      '/v2/certificates',
      issueBody({ csrPem: derToPem(broken, 'CERTIFICATE REQUEST') }),
    );
    const problem = expectProblem(answer, 400, 'CSR_SIGNATURE_INVALID', 'ca-manager/csr-signature-invalid');
    expect(problem.errors).toEqual([{ field: 'csrPem', message: expect.stringContaining('signature') }]);
    const after = (await tenant.get('/v1/certificates')).json<{ certificates: unknown[] }>().certificates
      .length;
    expect(after).toBe(before);
  });

  it.each([
    ['text that is not PEM', 'not a request'],
    ['a certificate instead of a request', derToPem(Uint8Array.of(0x30, 0x00), 'CERTIFICATE')],
    ['a PEM request that is not DER', derToPem(Uint8Array.of(1, 2, 3, 4), 'CERTIFICATE REQUEST')],
    ['a request over 16 KiB', derToPem(new Uint8Array(13_000), 'CERTIFICATE REQUEST')],
  ])('refuses %s with CSR_INVALID', async (_, csrPem) => {
    const answer = await tenant.post('/v2/certificates', issueBody({ csrPem }));
    const problem = expectProblem(answer, 400, 'CSR_INVALID', 'ca-manager/csr-invalid');
    expect(problem.errors?.map(({ field }) => field)).toEqual(['csrPem']);
  });

  it('refuses a File answer or a PKCS#12 with a CSR: there is no key to deliver', async () => {
    const { csrPem } = await nodeCsr();
    expectValidationProblem(
      await tenant.post('/v2/certificates', issueBody({ csrPem, responseFormat: 'File' })),
      ['responseFormat'],
    );
    expectValidationProblem(
      await tenant.post('/v2/certificates', issueBody({ csrPem, passwordProtected: true })),
      ['passwordProtected'],
    );
    expectValidationProblem(await tenant.post('/v2/certificates', issueBody({ csrPem: 42 })), ['csrPem']);
    // v1 has no csrPem: an unknown field there.
    expectValidationProblem(await tenant.post('/v1/certificates', issueBody({ csrPem })), ['csrPem']);
  });

  it('renews with a new CSR (new key, same names), and refuses to renew a CSR certificate without one', async () => {
    const first = await nodeCsr();
    const original = issued(await tenant.post('/v2/certificates', serverBody({ csrPem: first.csrPem })));

    const withoutCsr = await tenant.post(`/v2/certificates/${original.certificateId}/renew`, {
      validityDays: 30,
    });
    expectValidationProblem(withoutCsr, ['csrPem']);
    const v1 = await tenant.post(`/v1/certificates/${original.certificateId}/renew`, { validityDays: 30 });
    expectValidationProblem(v1, ['csrPem']);

    const second = await nodeCsr();
    const renewed = issued(
      await tenant.post(`/v2/certificates/${original.certificateId}/renew`, {
        validityDays: 30,
        csrPem: second.csrPem,
      }),
    );
    expect(renewed.newCertificateId).toEqual(expect.any(String));
    expect(certificateSpki(renewed.certificatePem)).toEqual(second.spki);
    expect(new X509Certificate(renewed.certificatePem).subjectAltName).toBe(
      new X509Certificate(original.certificatePem).subjectAltName,
    );
    expectValidationProblem(
      await tenant.post(`/v2/certificates/${original.certificateId}/renew`, {
        validityDays: 30,
        csrPem: second.csrPem,
        responseFormat: 'File',
      }),
      ['responseFormat'],
    );
  });

  it('renews a certificate whose key the service made onto the key of a CSR', async () => {
    const original = await tenant.issue(serverBody(), '/v2/certificates');
    const { csrPem, spki } = await nodeCsr();
    const renewed = issued(
      await tenant.post(`/v2/certificates/${original.certificateId}/renew`, { validityDays: 30, csrPem }),
    );
    expect(certificateSpki(renewed.certificatePem)).toEqual(spki);
  });

  it('answers chainPem beside certificatePem on every issue and renew shape (v1, v2, server key, CSR)', async () => {
    const v1 = await tenant.post('/v1/certificates', issueBody());
    const v2 = await tenant.post('/v2/certificates', serverBody());
    const answers = [
      v1,
      v2,
      await tenant.post(`/v1/certificates/${v1.json<{ certificateId: string }>().certificateId}/renew`, {
        validityDays: 30,
      }),
      await tenant.post(`/v2/certificates/${v2.json<{ certificateId: string }>().certificateId}/renew`, {
        validityDays: 30,
      }),
    ];
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(answer.json<Record<string, string>>()).toEqual(
        expect.objectContaining({ certificatePem: expect.any(String), chainPem: '' }),
      );
    }
  });

  it('never certifies again a key revoked for keyCompromise (issue and renew: 400 CSR_KEY_COMPROMISED); another reason does not block it', async () => {
    const compromised = await nodeCsr();
    const first = issued(await tenant.post('/v2/certificates', issueBody({ csrPem: compromised.csrPem })));
    const revoke = (certificateId: string, reasonCode: string) =>
      tenant.post(`/v1/certificates/${certificateId}/revoke`, { reason: 'test', reasonCode });
    expect((await revoke(first.certificateId, 'KeyCompromise')).status).toBe(200);
    const again = await tenant.post('/v2/certificates', issueBody({ csrPem: compromised.csrPem }));
    expect(expectProblem(again, 400, 'CSR_KEY_COMPROMISED').errors).toEqual([
      { field: 'csrPem', message: expect.stringContaining('keyCompromise') },
    ]);
    const other = await tenant.issue(serverBody(), '/v2/certificates');
    const renewed = await tenant.post(`/v2/certificates/${other.certificateId}/renew`, {
      validityDays: 30,
      csrPem: compromised.csrPem,
    });
    expectProblem(renewed, 400, 'CSR_KEY_COMPROMISED');

    const superseded = await nodeCsr();
    const kept = issued(await tenant.post('/v2/certificates', issueBody({ csrPem: superseded.csrPem })));
    expect((await revoke(kept.certificateId, 'Superseded')).status).toBe(200);
    issued(await tenant.post('/v2/certificates', issueBody({ csrPem: superseded.csrPem })));
  });

  it('applies the issuance policy to CSR issuance like any other', async () => {
    const limited = await createTenant(sut, { commonName: 'CSR Policy Root' });
    const put = await adminRequest(sut, 'PUT', '/v2/policy', limited.bearer, {
      allowedDnsSuffixes: ['example.com'],
    });
    expect(put.status).toBe(200);
    const { csrPem } = await nodeCsr();
    const answer = await limited.post(
      '/v2/certificates',
      serverBody({ csrPem, commonName: 'edge', subjectAlternativeNames: ['api.example.org'] }),
    );
    expect(expectProblem(answer, 400, 'NAME_NOT_ALLOWED_BY_POLICY').detail).toContain('"api.example.org"');
  });

  describeIfOpenssl('requests made by the openssl CLI', () => {
    const files = new TempFiles();

    afterAll(() => files.remove());

    /** `openssl req -new -newkey …` with the CSR's own subject and SANs; its key's SPKI too. */
    function opensslCsr(name: string, newkey: string[]): { csrPem: string; spki: Buffer } {
      const keyFile = files.write(`${name}.key.pem`, '');
      const csrPem = runOpenssl([
        'req',
        '-new',
        ...newkey,
        '-nodes',
        '-keyout',
        keyFile,
        '-subj',
        '/CN=evil.test/O=Somebody Else',
        '-addext',
        'subjectAltName=DNS:evil.test,DNS:*.evil.test',
      ]);
      const spki = createPublicKey(runOpenssl(['pkey', '-in', keyFile, '-pubout'])).export({
        type: 'spki',
        format: 'der',
      });
      return { csrPem, spki };
    }

    it('certifies a P-256 request with the names of the API request, not those of the CSR', async () => {
      const { csrPem, spki } = opensslCsr('p256', ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256']);
      const body = issued(await tenant.post('/v2/certificates', serverBody({ csrPem })));
      const certificate = new X509Certificate(body.certificatePem);
      expect(certificateSpki(body.certificatePem)).toEqual(spki);
      expect(certificate.subjectAltName).toBe('DNS:api.example.com, DNS:www.example.com');
      expect(certificate.subject).toContain('CN=api.example.com');
      expect(certificate.subject).toContain('O=Acme Corp');
      expect(certificate.subject).not.toContain('evil');

      const ca = files.write('ca.pem', tenant.caPem);
      const leaf = files.write('leaf.pem', body.certificatePem);
      expect(
        runOpenssl(['verify', '-x509_strict', '-purpose', 'sslserver', '-CAfile', ca, leaf]).trim(),
      ).toBe(`${leaf}: OK`);
      // openssl agrees that the key of the certificate is the key of the request.
      const csrFile = files.write('p256.csr', csrPem);
      expect(runOpenssl(['req', '-in', csrFile, '-noout', '-pubkey'])).toBe(
        runOpenssl(['x509', '-in', leaf, '-noout', '-pubkey']),
      );
    });

    it('refuses an RSA-2048 request: the key type is not allowed', async () => {
      const { csrPem } = opensslCsr('rsa', ['-newkey', 'rsa:2048']);
      const answer = await tenant.post('/v2/certificates', serverBody({ csrPem }));
      const problem = expectProblem(answer, 400, 'CSR_KEY_NOT_ALLOWED', 'ca-manager/csr-key-not-allowed');
      expect(problem.detail).toContain('RSA-2048');
    });

    it.each([
      ['P-384', ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-384']],
      ['RSA-3072', ['-newkey', 'rsa:3072']],
    ])('certifies a %s request, the key of the request', async (name, args) => {
      const { csrPem, spki } = opensslCsr(name.toLowerCase(), args);
      const body = issued(await tenant.post('/v2/certificates', serverBody({ csrPem })));
      expect(certificateSpki(body.certificatePem)).toEqual(spki);
      expect(body).not.toHaveProperty('privateKeyPem');
    });

    it('accepts the CSR with CRLF line ends, as Windows tools write it', async () => {
      const { csrPem, spki } = opensslCsr('crlf', ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256']);
      const body = issued(
        await tenant.post('/v2/certificates', serverBody({ csrPem: csrPem.replace(/\n/g, '\r\n') })),
      );
      expect(certificateSpki(body.certificatePem)).toEqual(spki);
      expect(pemToDer(body.certificatePem).length).toBeGreaterThan(0);
    });
  });
});
