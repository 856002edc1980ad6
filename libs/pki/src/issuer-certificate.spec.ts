import type { webcrypto } from 'node:crypto';

import * as pkijs from 'pkijs';

import { buildCaCertificate } from './ca-certificate.builder';
import { generateEcKeyPair } from './ec-key-pair';
import { keyIdentifier } from './extensions';
import { decodeIssuerCertificate } from './issuer-certificate';
import { buildLeafCertificate } from './leaf-certificate.builder';
import { PkiFormatError } from './pki-format.error';
import { randomSerialNumber } from './serial-number';

describe('decodeIssuerCertificate', () => {
  let keys: webcrypto.CryptoKeyPair;
  const newCa = (commonName = 'Issuer CA') =>
    buildCaCertificate(
      {
        subject: { commonName },
        notBefore: new Date('2026-01-01T00:00:00Z'),
        notAfter: new Date('2036-01-01T00:00:00Z'),
        serialNumber: randomSerialNumber(),
      },
      keys,
    );

  beforeAll(async () => {
    keys = await generateEcKeyPair(false);
  });

  it("gives the certificate and its SKI as the issuer's key identifier", async () => {
    const der = await newCa();
    const issuer = decodeIssuerCertificate(der);
    expect(Buffer.from(issuer.certificate.toSchema().toBER(false))).toEqual(Buffer.from(der));
    expect(Buffer.from(issuer.keyIdentifier)).toEqual(
      Buffer.from(keyIdentifier(pkijs.Certificate.fromBER(der).subjectPublicKeyInfo)),
    );
  });

  it('decodes the same bytes once, whatever array holds them', async () => {
    const der = await newCa();
    const first = decodeIssuerCertificate(der);
    expect(decodeIssuerCertificate(Uint8Array.from(der))).toBe(first);
    const padded = Uint8Array.of(9, ...der, 9);
    expect(decodeIssuerCertificate(padded.subarray(1, 1 + der.length))).toBe(first);
  });

  it('keeps the 64 most recently used issuers', async () => {
    const oldest = await newCa('CA 0');
    const first = decodeIssuerCertificate(oldest);
    for (let i = 1; i <= 64; i++) decodeIssuerCertificate(await newCa(`CA ${i}`));
    expect(decodeIssuerCertificate(oldest)).not.toBe(first);
    expect(decodeIssuerCertificate(oldest)).toBe(decodeIssuerCertificate(oldest));
  });

  it('refuses a certificate that is not a CA, and bytes that are no certificate', async () => {
    const ca = await newCa();
    const leaf = await buildLeafCertificate(
      {
        subject: { commonName: 'leaf' },
        notBefore: new Date('2026-02-01T00:00:00Z'),
        notAfter: new Date('2026-03-01T00:00:00Z'),
        serialNumber: randomSerialNumber(),
        extendedKeyUsages: ['clientAuth'],
      },
      keys.publicKey,
      { certificateDer: ca, privateKey: keys.privateKey },
    );
    expect(() => decodeIssuerCertificate(leaf)).toThrow(RangeError);
    expect(() => decodeIssuerCertificate(leaf)).toThrow('not a CA certificate');
    expect(() => decodeIssuerCertificate(Uint8Array.of(0x30, 0x00))).toThrow(PkiFormatError);
  });
});
