import { X509Certificate, createPrivateKey } from 'node:crypto';
import * as tls from 'node:tls';

import * as asn1js from 'asn1js';

import { derToPem } from './pem';
import { buildPkcs12 } from './pkcs12.builder';
import { PkiFormatError } from './pki-format.error';
import { createTestPki, describeIfOpenssl, spawnOpenssl } from './testing';

const PASSWORD = 'n7Vw0m3k-Zb1YqH2xJ4c_A';

async function bundle() {
  const pki = await createTestPki('PKCS12 Test Root');
  const leaf = await pki.issueLeaf(['clientAuth'], 'pkcs12-client');
  const pkcs8 = new Uint8Array(await globalThis.crypto.subtle.exportKey('pkcs8', leaf.keys.privateKey));
  const pfx = await buildPkcs12(
    {
      privateKeyPkcs8: pkcs8,
      certificateDer: leaf.der,
      caCertificatesDer: [pki.caDer],
      friendlyName: 'pkcs12-client',
    },
    PASSWORD,
  );
  return { pki, leaf, pkcs8, pfx: Buffer.from(pfx) };
}

let made: Awaited<ReturnType<typeof bundle>>;
beforeAll(async () => {
  made = await bundle();
});

describe('buildPkcs12', () => {
  it('says in its own structure that it uses PBES2 with PBKDF2, AES-256-CBC and HMAC-SHA256', () => {
    const hex = made.pfx.toString('hex');
    const oid = (dotted: string) =>
      Buffer.from(new asn1js.ObjectIdentifier({ value: dotted }).toBER()).toString('hex');
    expect(hex).toContain(oid('1.2.840.113549.1.5.13')); // PBES2
    expect(hex).toContain(oid('1.2.840.113549.1.5.12')); // PBKDF2
    expect(hex).toContain(oid('2.16.840.1.101.3.4.1.42')); // aes256-CBC
    expect(hex).toContain(oid('1.2.840.113549.2.9')); // hmacWithSHA256 (PBKDF2 PRF)
    expect(hex).toContain(oid('2.16.840.1.101.3.4.2.1')); // SHA-256 (MAC digest)
    expect(hex).not.toContain(oid('1.2.840.113549.1.12.1.3')); // no legacy pbeWithSHAAnd3-KeyTripleDES
  });

  it("is accepted by Node's TLS with the password, and refused with a wrong one", () => {
    expect(() => tls.createSecureContext({ pfx: made.pfx, passphrase: PASSWORD })).not.toThrow();
    expect(() => tls.createSecureContext({ pfx: made.pfx, passphrase: 'wrong-password' })).toThrow(
      /mac verify failure|bad decrypt|unsupported/i,
    );
  });

  it('refuses an empty password and a key that is not PKCS#8', async () => {
    await expect(
      buildPkcs12({ privateKeyPkcs8: made.pkcs8, certificateDer: made.leaf.der, caCertificatesDer: [] }, ''),
    ).rejects.toThrow(RangeError);
    await expect(
      buildPkcs12(
        { privateKeyPkcs8: new Uint8Array([1, 2, 3]), certificateDer: made.leaf.der, caCertificatesDer: [] },
        PASSWORD,
      ),
    ).rejects.toThrow(PkiFormatError);
  });
});

describeIfOpenssl('buildPkcs12 read by openssl pkcs12', () => {
  it('opens with the password and holds the same key, the certificate and the CA certificate', () => {
    const opened = spawnOpenssl(['pkcs12', '-passin', `pass:${PASSWORD}`, '-nodes'], made.pfx);
    expect(opened.stderr).not.toMatch(/error/i);
    expect(opened.status).toBe(0);
    const certificates = [
      ...opened.stdout.matchAll(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n/g),
    ].map((m) => new X509Certificate(m[0]));
    expect(certificates.map((c) => c.raw.equals(Buffer.from(made.leaf.der)))).toContain(true);
    expect(certificates.map((c) => c.raw.equals(Buffer.from(made.pki.caDer)))).toContain(true);
    const keyPem = opened.stdout.match(/-----BEGIN PRIVATE KEY-----[\s\S]+?-----END PRIVATE KEY-----\n/)![0];
    const key = createPrivateKey(keyPem).export({ type: 'pkcs8', format: 'der' });
    expect(key.equals(Buffer.from(made.pkcs8))).toBe(true);
    expect(opened.stdout).toContain('friendlyName: pkcs12-client');
    expect(new X509Certificate(derToPem(made.leaf.der)).checkPrivateKey(createPrivateKey(keyPem))).toBe(true);
  });

  it('fails the MAC check with a wrong password', () => {
    const opened = spawnOpenssl(['pkcs12', '-passin', 'pass:not-the-password', '-nodes'], made.pfx);
    expect(opened.status).not.toBe(0);
    expect(opened.stderr).toMatch(/mac verify/i);
  });
});
