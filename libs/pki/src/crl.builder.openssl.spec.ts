import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { parseCertificate } from './certificate.parser';
import { assembleCertificateList, type CrlProfile, encodeTbsCertList } from './crl.builder';
import { signTbs } from './ecdsa-sig-value';
import { derToPem } from './pem';
import { createTestPki, describeIfOpenssl, runOpenssl, spawnOpenssl, type TestPki } from './testing';

const colonHex = (hex: string) => hex.match(/../g)!.join(':');

// Every artifact is cross-checked by an outside parser: here the openssl CLI.
describeIfOpenssl('CRLs read and checked by the openssl CLI', () => {
  let dir: string;
  let pki: TestPki;
  let caPem: string;
  const leaves: Record<'revoked' | 'superseded' | 'good', { pem: string; serialNumberHex: string }> = {
    revoked: { pem: '', serialNumberHex: '' },
    superseded: { pem: '', serialNumberHex: '' },
    good: { pem: '', serialNumberHex: '' },
  };
  const now = Date.now();

  /** Signs a CRL by the test CA and writes it as DER and PEM; returns both paths. */
  const writeCrl = async (name: string, profile: Partial<CrlProfile>) => {
    const tbs = encodeTbsCertList({
      issuerCertificateDer: pki.caDer,
      crlNumber: 42n,
      thisUpdate: new Date(now - 60_000),
      nextUpdate: new Date(now + 7 * 86_400_000),
      entries: [],
      ...profile,
    });
    const crl = assembleCertificateList(tbs, await signTbs(tbs, pki.caKeys.privateKey));
    const der = join(dir, `${name}.der`);
    const pem = join(dir, `${name}.pem`);
    writeFileSync(der, crl);
    writeFileSync(pem, derToPem(crl, 'X509 CRL'));
    return { der, pem };
  };
  let crl: { der: string; pem: string };
  let empty: { der: string; pem: string };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pki-crl-'));
    pki = await createTestPki('CRL Root CA');
    caPem = join(dir, 'ca.pem');
    writeFileSync(caPem, derToPem(pki.caDer));
    for (const kind of ['revoked', 'superseded', 'good'] as const) {
      const leaf = await pki.issueLeaf();
      const pem = join(dir, `${kind}.pem`);
      writeFileSync(pem, derToPem(leaf.der));
      leaves[kind] = { pem, serialNumberHex: leaf.serialNumberHex };
    }
    crl = await writeCrl('crl', {
      entries: [
        {
          serialNumberHex: leaves.revoked.serialNumberHex,
          revocationDate: new Date(now - 30_000),
          reasonCode: 1,
        },
        {
          serialNumberHex: leaves.superseded.serialNumberHex,
          revocationDate: new Date(now - 20_000),
          reasonCode: 0,
        },
        { serialNumberHex: 'F00D', revocationDate: new Date('2051-06-01T12:00:00Z'), reasonCode: 4 },
      ],
    });
    empty = await writeCrl('empty', { crlNumber: 43n, nextUpdate: new Date('2051-01-01T00:00:00Z') });
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('prints a v2 CRL with CRL Number, AKI and the revoked serials and reasons', () => {
    const text = runOpenssl(['crl', '-inform', 'DER', '-in', crl.der, '-noout', '-text']);
    const caSki = parseCertificate(pki.caDer).subjectKeyIdentifierHex!;
    expect(text).toContain('Version 2 (0x1)');
    expect(text).toContain('Signature Algorithm: ecdsa-with-SHA256');
    expect(text).toContain('Issuer: C = US, O = Acme, CN = CRL Root CA');
    expect(text).toMatch(/X509v3 CRL Number: \n\s+42\n/);
    expect(text).toMatch(
      new RegExp(`X509v3 Authority Key Identifier: \\n\\s+(keyid:)?${colonHex(caSki)}\\n`),
    );
    expect(text).toContain('Revoked Certificates:');
    expect(text).toMatch(
      new RegExp(
        `Serial Number: ${leaves.revoked.serialNumberHex}\\n\\s+Revocation Date: .*\\n` +
          String.raw`\s+CRL entry extensions:\n\s+X509v3 CRL Reason Code: \n\s+Key Compromise\n`,
      ),
    );
    // Unspecified: no entry extension at all (RFC 5280 5.3.1).
    expect(text).toMatch(
      new RegExp(
        `Serial Number: ${leaves.superseded.serialNumberHex}\\n\\s+Revocation Date: .*\\n\\s+Serial Number: F00D\\n`,
      ),
    );
    expect(text).toMatch(
      /Serial Number: F00D\n\s+Revocation Date: Jun  1 12:00:00 2051 GMT\n[\s\S]*Superseded\n/,
    );
  });

  it('prints an empty CRL without revoked certificates and a 2051 nextUpdate', () => {
    const text = runOpenssl(['crl', '-inform', 'DER', '-in', empty.der, '-noout', '-text']);
    expect(text).toContain('No Revoked Certificates.');
    expect(text).toContain('Next Update: Jan  1 00:00:00 2051 GMT');
    expect(text).toMatch(/X509v3 CRL Number: \n\s+43\n/);
  });

  it('verifies the CRL signature against the CA', () => {
    for (const { der } of [crl, empty]) {
      const result = spawnOpenssl([
        'crl',
        '-inform',
        'DER',
        '-in',
        der,
        '-CAfile',
        caPem,
        '-noout',
        '-verify',
      ]);
      expect(result.stderr).toContain('verify OK');
      expect(result.status).toBe(0);
    }
  });

  it('fails the signature check of a CRL changed after signing', () => {
    const bytes = readFileSync(crl.der);
    const serial = Buffer.from(leaves.revoked.serialNumberHex, 'hex');
    bytes[bytes.indexOf(serial) + serial.length - 1] ^= 1; // another serial, still well-formed
    const path = join(dir, 'tampered.der');
    writeFileSync(path, bytes);
    const result = spawnOpenssl([
      'crl',
      '-inform',
      'DER',
      '-in',
      path,
      '-CAfile',
      caPem,
      '-noout',
      '-verify',
    ]);
    expect(result.stderr).toContain('verify failure');
    expect(result.stderr).not.toContain('verify OK');
  });

  it('makes openssl verify -crl_check reject a revoked leaf and accept a good one', () => {
    const verify = (leaf: string, crlPem: string) =>
      spawnOpenssl(['verify', '-crl_check', '-CAfile', caPem, '-CRLfile', crlPem, leaf]);
    for (const kind of ['revoked', 'superseded'] as const) {
      const result = verify(leaves[kind].pem, crl.pem);
      expect(result.status).not.toBe(0);
      expect(result.stdout + result.stderr).toContain('certificate revoked');
    }
    expect(verify(leaves.good.pem, crl.pem)).toMatchObject({ status: 0, stdout: `${leaves.good.pem}: OK\n` });
    expect(verify(leaves.revoked.pem, empty.pem)).toMatchObject({
      status: 0,
      stdout: `${leaves.revoked.pem}: OK\n`,
    });
  });
});
