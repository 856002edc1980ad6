import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { buildCaCertificationRequest } from './ca-certification-request.builder';
import { exportSpkiDer, generateEcKeyPair } from './ec-key-pair';
import { derToPem } from './pem';
import { describeIfOpenssl, runOpenssl } from './testing/openssl';
import { checkUploadedCaChain, UploadedCaChainError } from './uploaded-ca-chain.check';

const problemOf = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    if (error instanceof UploadedCaChainError) return error.problem;
    throw error;
  }
  return undefined;
};

/**
 * docs/api.md#external-root with a corporate root made by openssl: openssl reads our CSR and signs
 * it (keeping its requested extensions); the chain check accepts that, and refuses an issuer openssl
 * made without the right to certify CAs.
 */
describeIfOpenssl('checkUploadedCaChain with openssl-made corporate roots', () => {
  let dir: string;
  const path = (name: string) => join(dir, name);

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'uploaded-ca-chain-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  function corporateRoot(name: string, extensions: string[]): string {
    runOpenssl([
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
      '30',
      '-subj',
      `/O=Corp/CN=${name}`,
      ...extensions.flatMap((extension) => ['-addext', extension]),
    ]);
    return readFileSync(path(`${name}.pem`), 'utf8');
  }

  async function signedBy(root: string): Promise<{ certificatePem: string; spki: Uint8Array }> {
    const keys = await generateEcKeyPair(false);
    const csr = await buildCaCertificationRequest(
      { country: 'US', organization: 'Acme', commonName: 'Acme Issuing CA' },
      keys,
    );
    writeFileSync(path('ours.csr'), derToPem(csr, 'CERTIFICATE REQUEST'));
    expect(runOpenssl(['req', '-in', path('ours.csr'), '-noout', '-verify', '-text'])).toMatch(
      /CA:TRUE, pathlen:0/,
    );
    runOpenssl([
      'x509',
      '-req',
      '-in',
      path('ours.csr'),
      '-CA',
      path(`${root}.pem`),
      '-CAkey',
      path(`${root}.key`),
      '-CAcreateserial',
      '-days',
      '7',
      '-copy_extensions',
      'copyall',
      '-out',
      path('ours.pem'),
    ]);
    return {
      certificatePem: readFileSync(path('ours.pem'), 'utf8'),
      spki: await exportSpkiDer(keys.publicKey),
    };
  }

  it('accepts our CSR signed by a corporate root with the extensions the CSR asks for', async () => {
    const root = corporateRoot('Corp Root', [
      'basicConstraints=critical,CA:TRUE',
      'keyUsage=critical,keyCertSign,cRLSign',
    ]);
    const { certificatePem, spki } = await signedBy('Corp Root');
    const checked = checkUploadedCaChain({
      certificatePem,
      chainPem: root,
      publicKeySpki: spki,
      now: new Date(),
    });
    expect(checked.intermediatesDer).toEqual([]);
    expect(derToPem(checked.rootDer)).toBe(root);
  });

  it('refuses an issuer that is not a CA, or may not sign certificates', async () => {
    for (const [name, extensions] of [
      ['Not A CA', ['basicConstraints=critical,CA:FALSE', 'keyUsage=critical,keyCertSign,cRLSign']],
      ['No keyCertSign', ['basicConstraints=critical,CA:TRUE', 'keyUsage=critical,digitalSignature,cRLSign']],
    ] as const) {
      const root = corporateRoot(name, [...extensions]);
      const { certificatePem, spki } = await signedBy(name);
      expect(
        problemOf(() =>
          checkUploadedCaChain({ certificatePem, chainPem: root, publicKeySpki: spki, now: new Date() }),
        ),
      ).toBe('issuer-not-ca');
    }
  });
});
