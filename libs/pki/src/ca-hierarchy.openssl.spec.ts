import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { webcrypto } from 'node:crypto';

import { buildCaCertificate } from './ca-certificate.builder';
import { assembleCertificateList, encodeTbsCertList } from './crl.builder';
import { checkCrlIssuedBy } from './crl-issued-by';
import { signTbs } from './ecdsa-sig-value';
import { generateEcKeyPair } from './ec-key-pair';
import { buildLeafCertificate } from './leaf-certificate.builder';
import { derToPem } from './pem';
import { randomSerialNumber } from './serial-number';
import { describeIfOpenssl, runOpenssl } from './testing';

const DAY = 86_400_000;
const KEY_PARAMS = {
  'P-256': { name: 'ECDSA', namedCurve: 'P-256' },
  'P-384': { name: 'ECDSA', namedCurve: 'P-384' },
  'RSA-3072': {
    name: 'RSASSA-PKCS1-v1_5',
    modulusLength: 3072,
    publicExponent: Uint8Array.of(1, 0, 1),
    hash: 'SHA-256',
  },
} as const;

async function keyPair(algorithm: keyof typeof KEY_PARAMS): Promise<webcrypto.CryptoKeyPair> {
  return (await globalThis.crypto.subtle.generateKey(KEY_PARAMS[algorithm], false, [
    'sign',
    'verify',
  ])) as webcrypto.CryptoKeyPair;
}

// A root, an issuing CA under it (pathLen 0, CDP and AIA) and a leaf under that, for each key
// algorithm a tenant may choose; openssl must accept the chain strictly and both CRLs.
describeIfOpenssl('CA hierarchy read by the openssl CLI', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'pki-hierarchy-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each([
    ['P-256', 'ecdsa-with-SHA256'],
    ['P-384', 'ecdsa-with-SHA384'],
    ['RSA-3072', 'sha256WithRSAEncryption'],
  ] as const)(
    '%s: root -> issuing CA -> leaf verifies with -x509_strict, signed with %s',
    async (algorithm, signatureName) => {
      const notBefore = new Date(Date.now() - 60_000);
      const rootKeys = await keyPair(algorithm);
      const rootDer = await buildCaCertificate(
        {
          subject: { country: 'US', organization: 'Acme', commonName: `Acme Root ${algorithm}` },
          notBefore,
          notAfter: new Date(notBefore.getTime() + 3650 * DAY),
          serialNumber: randomSerialNumber(),
          pathLenConstraint: 1,
        },
        rootKeys,
      );
      const issuingKeys = await keyPair(algorithm);
      const issuingDer = await buildCaCertificate(
        {
          subject: { country: 'US', organization: 'Acme', commonName: `Acme Issuing ${algorithm}` },
          notBefore,
          notAfter: new Date(notBefore.getTime() + 1825 * DAY),
          serialNumber: randomSerialNumber(),
          pathLenConstraint: 0,
          crlDistributionPointUrl: 'http://pki.test/v1/tenants/t/root.crl',
          ocspUrl: 'http://pki.test/v1/tenants/t/ocsp',
          caIssuersUrl: 'http://pki.test/v1/tenants/t/ca.crt',
        },
        issuingKeys,
        { certificateDer: rootDer, privateKey: rootKeys.privateKey },
      );
      const leafKeys = await generateEcKeyPair(false);
      const leafDer = await buildLeafCertificate(
        {
          subject: { organization: 'Acme', commonName: 'client' },
          notBefore,
          notAfter: new Date(notBefore.getTime() + 90 * DAY),
          serialNumber: randomSerialNumber(),
          extendedKeyUsages: ['clientAuth'],
        },
        leafKeys.publicKey,
        { certificateDer: issuingDer, privateKey: issuingKeys.privateKey },
      );
      const root = join(dir, `${algorithm}-root.pem`);
      const issuing = join(dir, `${algorithm}-issuing.pem`);
      const leaf = join(dir, `${algorithm}-leaf.pem`);
      writeFileSync(root, derToPem(rootDer));
      writeFileSync(issuing, derToPem(issuingDer));
      writeFileSync(leaf, derToPem(leafDer));

      expect(runOpenssl(['verify', '-x509_strict', '-CAfile', root, '-untrusted', issuing, leaf])).toContain(
        'OK',
      );
      const issuingText = runOpenssl(['x509', '-in', issuing, '-noout', '-text']);
      expect(issuingText).toContain(`Signature Algorithm: ${signatureName}`);
      expect(issuingText).toMatch(/CA:TRUE, pathlen:0/);
      expect(issuingText).toContain('URI:http://pki.test/v1/tenants/t/root.crl');
      expect(runOpenssl(['x509', '-in', leaf, '-noout', '-text'])).toContain(
        `Signature Algorithm: ${signatureName}`,
      );

      // A CRL of each CA, signed by that CA's key, verifies against it and not against the other.
      for (const [name, caDer, caKey] of [
        ['root', rootDer, rootKeys.privateKey],
        ['issuing', issuingDer, issuingKeys.privateKey],
      ] as const) {
        const tbs = encodeTbsCertList({
          issuerCertificateDer: caDer,
          thisUpdate: notBefore,
          nextUpdate: new Date(notBefore.getTime() + DAY),
          crlNumber: 1n,
          entries: [],
        });
        const crlDer = assembleCertificateList(tbs, await signTbs(tbs, caKey));
        expect(checkCrlIssuedBy(crlDer, caDer)).toMatchObject({ issuedBy: true });
        expect(checkCrlIssuedBy(crlDer, name === 'root' ? issuingDer : rootDer)).toMatchObject({
          issuedBy: false,
        });
        const crl = join(dir, `${algorithm}-${name}.crl`);
        writeFileSync(crl, crlDer);
        const out = runOpenssl([
          'crl',
          '-inform',
          'DER',
          '-in',
          crl,
          '-CAfile',
          name === 'root' ? root : issuing,
          '-noout',
        ]);
        expect(out).toBe('');
      }
    },
    60_000, // RSA key generation
  );
});
