import { X509Certificate, createPrivateKey } from 'node:crypto';
import * as tls from 'node:tls';

import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';

import { pkiCrypto } from './crypto-engine';
import { derToPem } from './pem';
import { type Pkcs12Encryption, buildPkcs12 } from './pkcs12.builder';
import { PkiFormatError } from './pki-format.error';
import { createTestPki, describeIfOpenssl, spawnOpenssl } from './testing';

const PASSWORD = 'n7Vw0m3k-Zb1YqH2xJ4c_A';
const PROFILES: Pkcs12Encryption[] = ['modern', 'legacy'];

async function bundle() {
  const pki = await createTestPki('PKCS12 Test Root');
  const leaf = await pki.issueLeaf(['clientAuth'], 'pkcs12-client');
  const pkcs8 = new Uint8Array(await globalThis.crypto.subtle.exportKey('pkcs8', leaf.keys.privateKey));
  const contents = { privateKeyPkcs8: pkcs8, certificateDer: leaf.der, caCertificatesDer: [pki.caDer] };
  const pfx = {
    modern: Buffer.from(await buildPkcs12(contents, PASSWORD)),
    legacy: Buffer.from(await buildPkcs12(contents, PASSWORD, 'legacy')),
  };
  return { pki, leaf, pkcs8, pfx };
}

const oidHex = (dotted: string) =>
  Buffer.from(new asn1js.ObjectIdentifier({ value: dotted }).toBER()).toString('hex');

/** The salt of the first ContentInfo (the encrypted certificates) when it is PBES2. */
function pbkdf2SaltOctets(pfx: pkijs.PFX): number {
  const authenticatedSafe = pkijs.AuthenticatedSafe.fromBER(
    (pfx.authSafe.content as asn1js.OctetString).getValue(),
  );
  const encrypted = new pkijs.EncryptedData({ schema: authenticatedSafe.safeContents[0].content });
  const pbes2 = new pkijs.PBES2Params({
    schema: encrypted.encryptedContentInfo.contentEncryptionAlgorithm.algorithmParams,
  });
  const pbkdf2 = new pkijs.PBKDF2Params({ schema: pbes2.keyDerivationFunc.algorithmParams });
  return (pbkdf2.salt as asn1js.OctetString).valueBlock.valueHexView.byteLength;
}

let made: Awaited<ReturnType<typeof bundle>>;
beforeAll(async () => {
  made = await bundle();
});

describe('buildPkcs12', () => {
  it('modern: says in its own structure that it uses PBES2 with PBKDF2, AES-256-CBC and HMAC-SHA256', () => {
    const hex = made.pfx.modern.toString('hex');
    expect(hex).toContain(oidHex('1.2.840.113549.1.5.13')); // PBES2
    expect(hex).toContain(oidHex('1.2.840.113549.1.5.12')); // PBKDF2
    expect(hex).toContain(oidHex('2.16.840.1.101.3.4.1.42')); // aes256-CBC
    expect(hex).toContain(oidHex('1.2.840.113549.2.9')); // hmacWithSHA256 (PBKDF2 PRF)
    expect(hex).toContain(oidHex('2.16.840.1.101.3.4.2.1')); // SHA-256 (MAC digest)
    expect(hex).not.toContain(oidHex('1.2.840.113549.1.12.1.3')); // no legacy pbeWithSHAAnd3-KeyTripleDES
  });

  it('legacy: uses pbeWithSHAAnd3-KeyTripleDES-CBC and a SHA-1 MAC, and no PBES2', () => {
    const hex = made.pfx.legacy.toString('hex');
    expect(hex).toContain(oidHex('1.2.840.113549.1.12.1.3'));
    expect(hex).toContain(oidHex('1.3.14.3.2.26')); // SHA-1 (MAC digest)
    expect(hex).not.toContain(oidHex('1.2.840.113549.1.5.13'));
    expect(hex).not.toContain(oidHex('2.16.840.1.101.3.4.2.1'));
  });

  it('uses 8-octet salts and 2048 iterations, as OpenSSL does, and pkijs checks its MAC', async () => {
    for (const profile of PROFILES) {
      const pfx = pkijs.PFX.fromBER(made.pfx[profile]);
      expect(pfx.macData!.macSalt.valueBlock.valueHexView.byteLength).toBe(8);
      expect(pfx.macData!.iterations).toBe(2048);
    }
    const modern = pkijs.PFX.fromBER(made.pfx.modern);
    expect(pbkdf2SaltOctets(modern)).toBe(8);
    const password = new Uint8Array(Buffer.from(PASSWORD)).buffer;
    await expect(modern.parseInternalValues({ password, checkIntegrity: true }, pkiCrypto())).resolves.toBe(
      undefined,
    );
  });

  it.each(PROFILES)(
    "%s: is accepted by Node's TLS with the password, and refused with a wrong one",
    (profile) => {
      expect(() => tls.createSecureContext({ pfx: made.pfx[profile], passphrase: PASSWORD })).not.toThrow();
      expect(() => tls.createSecureContext({ pfx: made.pfx[profile], passphrase: 'wrong-password' })).toThrow(
        /mac verify failure|bad decrypt|unsupported/i,
      );
    },
  );

  it('refuses an empty password, a key that is not PKCS#8 and a certificate that is not DER', async () => {
    const contents = { privateKeyPkcs8: made.pkcs8, certificateDer: made.leaf.der, caCertificatesDer: [] };
    await expect(buildPkcs12(contents, '')).rejects.toThrow(RangeError);
    await expect(
      buildPkcs12({ ...contents, privateKeyPkcs8: new Uint8Array([1, 2, 3]) }, PASSWORD),
    ).rejects.toThrow(PkiFormatError);
    await expect(
      buildPkcs12({ ...contents, certificateDer: new Uint8Array([1, 2, 3]) }, PASSWORD),
    ).rejects.toThrow(PkiFormatError);
  });
});

describeIfOpenssl('buildPkcs12 read by openssl pkcs12', () => {
  it.each(PROFILES)(
    '%s: opens with the password and holds the same key, the certificate and the CA certificate, named by the CN',
    (profile) => {
      const opened = spawnOpenssl(['pkcs12', '-passin', `pass:${PASSWORD}`, '-nodes'], made.pfx[profile]);
      expect(opened.stderr).not.toMatch(/error/i);
      expect(opened.status).toBe(0);
      const certificates = [
        ...opened.stdout.matchAll(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n/g),
      ].map((m) => new X509Certificate(m[0]));
      expect(certificates.map((c) => c.raw.equals(Buffer.from(made.leaf.der)))).toContain(true);
      expect(certificates.map((c) => c.raw.equals(Buffer.from(made.pki.caDer)))).toContain(true);
      const keyPem = opened.stdout.match(
        /-----BEGIN PRIVATE KEY-----[\s\S]+?-----END PRIVATE KEY-----\n/,
      )![0];
      const key = createPrivateKey(keyPem).export({ type: 'pkcs8', format: 'der' });
      expect(key.equals(Buffer.from(made.pkcs8))).toBe(true);
      // The key bag and the leaf's certificate bag: the same friendlyName (the CN) and localKeyID.
      expect(opened.stdout.match(/friendlyName: pkcs12-client\n/g)).toHaveLength(2);
      const keyIds = [...opened.stdout.matchAll(/localKeyID: ([0-9A-F ]+)\n/g)].map((m) => m[1]);
      expect(keyIds).toHaveLength(2);
      expect(keyIds[0]).toBe(keyIds[1]);
      expect(new X509Certificate(derToPem(made.leaf.der)).checkPrivateKey(createPrivateKey(keyPem))).toBe(
        true,
      );
    },
  );

  it.each(PROFILES)('%s: reports 8-octet MAC salts and 2048 iterations', (profile) => {
    const info = spawnOpenssl(
      ['pkcs12', '-info', '-noout', '-passin', `pass:${PASSWORD}`],
      made.pfx[profile],
    );
    expect(info.status).toBe(0);
    expect(info.stderr).toMatch(/MAC: (sha256|sha1), Iteration 2048\nMAC length: (32|20), salt length: 8\n/);
  });

  it.each(PROFILES)('%s: fails the MAC check with a wrong password', (profile) => {
    const opened = spawnOpenssl(['pkcs12', '-passin', 'pass:not-the-password', '-nodes'], made.pfx[profile]);
    expect(opened.status).not.toBe(0);
    expect(opened.stderr).toMatch(/mac verify/i);
  });
});
