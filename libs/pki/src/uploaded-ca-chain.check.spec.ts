import type { webcrypto } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { hasOpenssl, runOpenssl } from './testing/openssl';

import { buildCaCertificate } from './ca-certificate.builder';
import { buildCaCertificationRequest } from './ca-certification-request.builder';
import { parseCertificationRequest } from './csr.parser';
import { exportSpkiDer, generateEcKeyPair } from './ec-key-pair';
import { buildLeafCertificate } from './leaf-certificate.builder';
import { derToPem } from './pem';
import { randomSerialNumber } from './serial-number';
import {
  checkUploadedCaChain,
  UploadedCaChainError,
  UploadedCaChainProblem,
} from './uploaded-ca-chain.check';

const DAY = 86_400_000;
const now = new Date();
const validity = { notBefore: new Date(now.getTime() - DAY), notAfter: new Date(now.getTime() + 365 * DAY) };

interface Ca {
  der: Uint8Array;
  keys: webcrypto.CryptoKeyPair;
}

async function ca(
  commonName: string,
  issuer?: Ca,
  pathLenConstraint?: number,
  keys?: webcrypto.CryptoKeyPair,
) {
  const own = keys ?? (await generateEcKeyPair(false));
  const der = await buildCaCertificate(
    {
      subject: { country: 'US', organization: 'Corp', commonName },
      ...validity,
      serialNumber: randomSerialNumber(),
      ...(pathLenConstraint === undefined ? {} : { pathLenConstraint }),
    },
    own,
    issuer && { certificateDer: issuer.der, privateKey: issuer.keys.privateKey },
  );
  return { der, keys: own };
}

const pem = (...ders: Uint8Array[]) => ders.map((der) => derToPem(der)).join('');

function problemOf(run: () => unknown): UploadedCaChainProblem | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    if (error instanceof UploadedCaChainError) return error.problem;
    throw error;
  }
}

describe('checkUploadedCaChain (docs/api.md#external-root)', () => {
  let ours: webcrypto.CryptoKeyPair;
  let spki: Uint8Array;
  let root: Ca;
  let intermediate: Ca;

  beforeAll(async () => {
    ours = await generateEcKeyPair(false);
    spki = await exportSpkiDer(ours.publicKey);
    root = await ca('Corp Root');
    intermediate = await ca('Corp Intermediate', root, 1);
  });

  const check = (certificateDer: Uint8Array, ...chain: Uint8Array[]) =>
    checkUploadedCaChain({
      certificatePem: pem(certificateDer),
      chainPem: pem(...chain),
      publicKeySpki: spki,
      now,
    });

  it('accepts our key certified by the root directly, and under an intermediate; answers intermediates and root apart', async () => {
    const direct = await ca('Ours', root, 0, ours);
    expect(check(direct.der, root.der)).toEqual({
      certificateDer: direct.der,
      intermediatesDer: [],
      rootDer: root.der,
    });
    const below = await ca('Ours', intermediate, 0, ours);
    expect(check(below.der, intermediate.der, root.der)).toEqual({
      certificateDer: below.der,
      intermediatesDer: [intermediate.der],
      rootDer: root.der,
    });
  });

  it('refuses what is not PEM certificates, or two certificates as certificatePem', async () => {
    const direct = await ca('Ours', root, 0, ours);
    expect(
      problemOf(() =>
        checkUploadedCaChain({ certificatePem: 'x', chainPem: pem(root.der), publicKeySpki: spki, now }),
      ),
    ).toBe('unreadable');
    const garbage = '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n';
    expect(
      problemOf(() =>
        checkUploadedCaChain({
          certificatePem: pem(direct.der),
          chainPem: garbage,
          publicKeySpki: spki,
          now,
        }),
      ),
    ).toBe('unreadable');
    expect(
      problemOf(() =>
        checkUploadedCaChain({
          certificatePem: pem(direct.der, root.der),
          chainPem: pem(root.der),
          publicKeySpki: spki,
          now,
        }),
      ),
    ).toBe('unreadable');
  });

  it('refuses a certificate for another key', async () => {
    const other = await ca('Other', root, 0);
    expect(problemOf(() => check(other.der, root.der))).toBe('key-mismatch');
  });

  it('refuses a certificate that is not a CA', async () => {
    const leaf = await buildLeafCertificate(
      {
        subject: { country: 'US', organization: 'Corp', commonName: 'Ours' },
        ...validity,
        serialNumber: randomSerialNumber(),
        extendedKeyUsages: ['clientAuth'],
      },
      ours.publicKey,
      { certificateDer: root.der, privateKey: root.keys.privateKey },
    );
    expect(problemOf(() => check(leaf, root.der))).toBe('not-ca');
  });

  it('refuses a certificate that is not valid now', async () => {
    const direct = await ca('Ours', root, 0, ours);
    const later = new Date(now.getTime() + 400 * DAY);
    expect(
      problemOf(() =>
        checkUploadedCaChain({
          certificatePem: pem(direct.der),
          chainPem: pem(root.der),
          publicKeySpki: spki,
          now: later,
        }),
      ),
    ).toBe('not-valid-now');
  });

  it('refuses a chain out of order, missing a link, or not ending with a self-signed root', async () => {
    const below = await ca('Ours', intermediate, 0, ours);
    expect(problemOf(() => check(below.der, root.der))).toBe('signature');
    expect(problemOf(() => check(below.der, root.der, intermediate.der))).toBe('signature');
    expect(problemOf(() => check(below.der, intermediate.der))).toBe('signature');
    // Same name, another key: the signature, not only the name, has to match.
    const impostor = await ca('Corp Root');
    const direct = await ca('Ours', root, 0, ours);
    expect(problemOf(() => check(direct.der, impostor.der))).toBe('signature');
  });

  it('refuses issuers whose pathLenConstraint allows no CA as deep as ours', async () => {
    const strictRoot = await ca('Strict Root', undefined, 0);
    const direct = await ca('Ours', strictRoot, 0, ours);
    expect(problemOf(() => check(direct.der, strictRoot.der))).toBe('path-length');
    // pathLen 1 on the root is enough directly, not with an intermediate between.
    const oneRoot = await ca('One Root', undefined, 1);
    expect(check((await ca('Ours', oneRoot, 0, ours)).der, oneRoot.der).rootDer).toEqual(oneRoot.der);
    const mid = await ca('Mid', oneRoot, 0);
    const underMid = await ca('Ours', mid, 0, ours);
    expect(problemOf(() => check(underMid.der, mid.der, oneRoot.der))).toBe('path-length');
  });

  // Our builder never makes a CA outlive its issuer, so openssl plays the corporate CA here.
  (hasOpenssl() ? it : it.skip)(
    'refuses a certificate that ends after a certificate of its chain (RFC 5280 6.1.3): a 90-day CA under a 20-day root',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'outlives-'));
      try {
        const path = (name: string) => join(dir, name);
        runOpenssl([
          'req',
          '-x509',
          '-newkey',
          'ec',
          '-pkeyopt',
          'ec_paramgen_curve:P-256',
          '-nodes',
          '-keyout',
          path('root.key'),
          '-out',
          path('root.pem'),
          '-days',
          '20',
          '-subj',
          '/CN=Short Root',
          '-addext',
          'basicConstraints=critical,CA:TRUE',
          '-addext',
          'keyUsage=critical,keyCertSign,cRLSign',
        ]);
        const csr = await buildCaCertificationRequest(
          { country: 'US', organization: 'Acme', commonName: 'Ours' },
          ours,
        );
        writeFileSync(path('ours.csr'), derToPem(csr, 'CERTIFICATE REQUEST'));
        writeFileSync(
          path('ext.cnf'),
          'basicConstraints=critical,CA:TRUE,pathlen:0\nkeyUsage=critical,keyCertSign,cRLSign\n',
        );
        const sign = (days: string, out: string) =>
          runOpenssl([
            'x509',
            '-req',
            '-in',
            path('ours.csr'),
            '-CA',
            path('root.pem'),
            '-CAkey',
            path('root.key'),
            '-set_serial',
            '0x1234',
            '-days',
            days,
            '-extfile',
            path('ext.cnf'),
            '-out',
            path(out),
          ]);
        sign('90', 'long.pem');
        sign('10', 'short.pem');
        const rootPem = readFileSync(path('root.pem'), 'utf8');
        const upload = (file: string) =>
          checkUploadedCaChain({
            certificatePem: readFileSync(path(file), 'utf8'),
            chainPem: rootPem,
            publicKeySpki: spki,
            now: new Date(Date.now() + 60_000),
          });
        expect(problemOf(() => upload('long.pem'))).toBe('outlives-chain');
        expect(upload('short.pem').intermediatesDer).toEqual([]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});

describe('buildCaCertificationRequest', () => {
  it('makes a PKCS#10 request of the key, self-signed, with the subject and CA extensions asked for', async () => {
    const keys = await generateEcKeyPair(false);
    const der = await buildCaCertificationRequest(
      { country: 'US', organization: 'Acme', commonName: 'Acme Issuing CA' },
      keys,
    );
    const parsed = parseCertificationRequest(der);
    expect(parsed.keyAlgorithm).toBe('P-256');
    expect(Buffer.from(parsed.subjectPublicKeyInfo)).toEqual(
      Buffer.from(await exportSpkiDer(keys.publicKey)),
    );
    expect(await parsed.verifySignature()).toBe(true);
  });
});
