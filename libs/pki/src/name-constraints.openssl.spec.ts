import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { webcrypto } from 'node:crypto';

import { buildCaCertificate } from './ca-certificate.builder';
import { generateEcKeyPair } from './ec-key-pair';
import { buildLeafCertificate, type ExtendedKeyUsage } from './leaf-certificate.builder';
import type { NameConstraints } from './name-constraints';
import { derToPem } from './pem';
import { randomSerialNumber } from './serial-number';
import { describeIfOpenssl, runOpenssl, spawnOpenssl } from './testing';

const DAY = 86_400_000;
const EVERY_IP = ['0.0.0.0/0', '::/0'];

async function p256(): Promise<webcrypto.CryptoKeyPair> {
  return (await globalThis.crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, [
    'sign',
    'verify',
  ])) as webcrypto.CryptoKeyPair;
}

// With our own keys a test can sign what the service never would (a name outside the
// constraints) and see openssl refuse it: the constraints bind the relying party, not only us.
describeIfOpenssl('a technically constrained issuing CA read by the openssl CLI', () => {
  let dir: string;
  let rootPath: string;
  const notBefore = new Date(Date.now() - 60_000);
  let rootDer: Uint8Array;
  let rootKeys: webcrypto.CryptoKeyPair;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pki-constraints-'));
    rootKeys = await p256();
    rootDer = await buildCaCertificate(
      {
        subject: { country: 'US', organization: 'Acme', commonName: 'Acme Root' },
        notBefore,
        notAfter: new Date(notBefore.getTime() + 3650 * DAY),
        serialNumber: randomSerialNumber(),
        pathLenConstraint: 1,
      },
      rootKeys,
    );
    rootPath = write('root.pem', rootDer);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  let written = 0;
  function write(name: string, der: Uint8Array): string {
    const path = join(dir, `${written++}-${name}`);
    writeFileSync(path, derToPem(der));
    return path;
  }

  async function issuingCa(
    nameConstraints: NameConstraints,
    extendedKeyUsages: ('serverAuth' | 'clientAuth')[] = ['serverAuth', 'clientAuth'],
  ) {
    const keys = await p256();
    const der = await buildCaCertificate(
      {
        subject: { country: 'US', organization: 'Acme', commonName: 'Acme Issuing CA' },
        notBefore,
        notAfter: new Date(notBefore.getTime() + 1825 * DAY),
        serialNumber: randomSerialNumber(),
        pathLenConstraint: 0,
        extendedKeyUsages,
        nameConstraints,
      },
      keys,
      { certificateDer: rootDer, privateKey: rootKeys.privateKey },
    );
    return { der, path: write('issuing.pem', der), privateKey: keys.privateKey };
  }

  async function leaf(
    ca: { der: Uint8Array; privateKey: webcrypto.CryptoKey },
    commonName: string,
    dnsNames: string[],
    extendedKeyUsages: ExtendedKeyUsage[] = dnsNames.length ? ['serverAuth'] : ['clientAuth'],
  ): Promise<string> {
    const keys = await generateEcKeyPair(false);
    const der = await buildLeafCertificate(
      {
        subject: { organization: 'Acme', commonName },
        notBefore,
        notAfter: new Date(notBefore.getTime() + 90 * DAY),
        serialNumber: randomSerialNumber(),
        extendedKeyUsages,
        dnsNames,
      },
      keys.publicKey,
      { certificateDer: ca.der, privateKey: ca.privateKey },
    );
    return write('leaf.pem', der);
  }

  function verify(issuingPath: string, leafPath: string, purpose: 'sslserver' | 'sslclient' | 'ocsphelper') {
    const { status, stdout, stderr } = spawnOpenssl([
      'verify',
      '-x509_strict',
      '-purpose',
      purpose,
      '-CAfile',
      rootPath,
      '-untrusted',
      issuingPath,
      leafPath,
    ]);
    return { ok: status === 0, output: `${stdout}${stderr}` };
  }

  it('shows a critical Name Constraints and the EKU in x509 -text', async () => {
    const ca = await issuingCa({
      permittedDnsNames: ['example.com', 'internal.example.net'],
      excludedDnsNames: [],
      excludedIpRanges: EVERY_IP,
    });
    const text = runOpenssl(['x509', '-in', ca.path, '-noout', '-text']);
    expect(text).toContain('X509v3 Name Constraints: critical');
    expect(text).toMatch(/Permitted:\s+DNS:example\.com\s+DNS:internal\.example\.net\s+Excluded:/);
    expect(text).toMatch(/IP:0\.0\.0\.0\/0\.0\.0\.0\s+IP:0:0:0:0:0:0:0:0\/0:0:0:0:0:0:0:0/);
    expect(text).toMatch(
      /X509v3 Extended Key Usage: \n\s+TLS Web Server Authentication, TLS Web Client Authentication/,
    );
    expect(text).toMatch(/CA:TRUE, pathlen:0/);
  });

  it('accepts leaves inside the permitted subtrees and refuses one outside', async () => {
    const ca = await issuingCa({
      permittedDnsNames: ['example.com'],
      excludedDnsNames: [],
      excludedIpRanges: EVERY_IP,
    });
    const inside = await leaf(ca, 'api.example.com', ['api.example.com', '*.example.com', 'example.com']);
    expect(verify(ca.path, inside, 'sslserver')).toMatchObject({ ok: true });
    // RFC 5280 4.2.1.10: adding labels on the left only; badexample.com is not under example.com.
    for (const name of ['api.example.org', 'badexample.com']) {
      const outside = await leaf(ca, name, [name]);
      const refused = verify(ca.path, outside, 'sslserver');
      expect(refused.ok).toBe(false);
      expect(refused.output).toMatch(/permitted subtree violation/);
    }
  });

  it('reads a host-name CN as a DNS name when the leaf has no DNS SAN, and any other CN not', async () => {
    const ca = await issuingCa({
      permittedDnsNames: ['example.com'],
      excludedDnsNames: [],
      excludedIpRanges: EVERY_IP,
    });
    expect(verify(ca.path, await leaf(ca, 'payments-client', []), 'sslclient')).toMatchObject({ ok: true });
    expect(verify(ca.path, await leaf(ca, 'device.example.com', []), 'sslclient')).toMatchObject({
      ok: true,
    });
    const outside = verify(ca.path, await leaf(ca, 'device.example.org', []), 'sslclient');
    expect(outside.ok).toBe(false);
    expect(outside.output).toMatch(/permitted subtree violation/);
  });

  it('with a zero-length excluded dNSName, refuses every DNS name and still accepts a client without one', async () => {
    const ca = await issuingCa({ permittedDnsNames: [], excludedDnsNames: [''], excludedIpRanges: EVERY_IP });
    expect(verify(ca.path, await leaf(ca, 'alice', []), 'sslclient')).toMatchObject({ ok: true });
    const named = verify(ca.path, await leaf(ca, 'api.example.com', ['api.example.com']), 'sslserver');
    expect(named.ok).toBe(false);
    expect(named.output).toMatch(/excluded subtree violation/);
  });

  it('passes serverAuth and clientAuth leaves under its EKU (openssl checks it along the chain)', async () => {
    const ca = await issuingCa({
      permittedDnsNames: ['example.com'],
      excludedDnsNames: [],
      excludedIpRanges: EVERY_IP,
    });
    const both = await leaf(ca, 'both.example.com', ['both.example.com'], ['serverAuth', 'clientAuth']);
    expect(verify(ca.path, both, 'sslserver')).toMatchObject({ ok: true });
    expect(verify(ca.path, both, 'sslclient')).toMatchObject({ ok: true });
  });

  it('refuses a server leaf under a CA whose EKU lacks serverAuth: the CA EKU must cover its leaves', async () => {
    const constraints = {
      permittedDnsNames: ['example.com'],
      excludedDnsNames: [],
      excludedIpRanges: EVERY_IP,
    };
    const clientOnly = await issuingCa(constraints, ['clientAuth']);
    const server = await leaf(clientOnly, 'api.example.com', ['api.example.com']);
    const refused = verify(clientOnly.path, server, 'sslserver');
    expect(refused.ok).toBe(false);
    expect(refused.output).toMatch(/at 1 depth lookup: unsuitable certificate purpose/);
  });

  it('still certifies a delegated OCSP signer: openssl does not ask the CA for OCSPSigning', async () => {
    const ca = await issuingCa({
      permittedDnsNames: ['example.com'],
      excludedDnsNames: [],
      excludedIpRanges: EVERY_IP,
    });
    const signer = await leaf(ca, 'OCSP Responder Acme Issuing CA', [], ['ocspSigning']);
    expect(verify(ca.path, signer, 'ocsphelper')).toMatchObject({ ok: true });
  });
});
