import type { webcrypto } from 'node:crypto';

import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';

import { buildCaCertificate, type CaCertificateProfile } from './ca-certificate.builder';
import { parseCertificate } from './certificate.parser';
import { exportSpkiDer, generateEcKeyPair } from './ec-key-pair';
import { keyIdentifier } from './extensions';
import { randomSerialNumber, serialToHex } from './serial-number';

const subject = { commonName: 'Acme Root CA', organization: 'Acme', country: 'US' };
const profile = (overrides: Partial<CaCertificateProfile> = {}): CaCertificateProfile => ({
  subject,
  notBefore: new Date('2026-01-01T00:00:00Z'),
  notAfter: new Date('2056-01-01T00:00:00Z'),
  serialNumber: randomSerialNumber(),
  ...overrides,
});

describe('buildCaCertificate', () => {
  let keys: webcrypto.CryptoKeyPair;
  beforeAll(async () => {
    keys = await generateEcKeyPair(false);
  });

  it('builds a self-signed root that reads back with the profile (30 years, to 2056)', async () => {
    const serialNumber = randomSerialNumber();
    const der = await buildCaCertificate(profile({ serialNumber }), keys);
    expect(parseCertificate(der)).toEqual(
      expect.objectContaining({
        serialNumberHex: serialToHex(serialNumber),
        subject,
        issuer: subject,
        notBefore: new Date('2026-01-01T00:00:00Z'),
        notAfter: new Date('2056-01-01T00:00:00Z'),
        isCa: true,
      }),
    );
  });

  it('writes v3, ecdsa-with-SHA256, UTCTime before 2050 and GeneralizedTime after, and a valid signature', async () => {
    const certificate = pkijs.Certificate.fromBER(await buildCaCertificate(profile(), keys));
    expect(certificate.version).toBe(2);
    expect(certificate.signatureAlgorithm.algorithmId).toBe('1.2.840.10045.4.3.2');
    expect(certificate.signatureAlgorithm.algorithmParams).toBeUndefined(); // RFC 5758 3.2: absent
    expect(certificate.notBefore.type).toBe(pkijs.TimeType.UTCTime);
    expect(certificate.notAfter.type).toBe(pkijs.TimeType.GeneralizedTime);
    expect(await certificate.verify(certificate)).toBe(true);
  });

  it('carries exactly basicConstraints, keyUsage, SKI and AKI, with SKI = AKI = SHA-1 of the key', async () => {
    const certificate = pkijs.Certificate.fromBER(await buildCaCertificate(profile(), keys));
    const keyId = Buffer.from(
      keyIdentifier(pkijs.PublicKeyInfo.fromBER(await exportSpkiDer(keys.publicKey))),
    );
    const byId = new Map(certificate.extensions!.map((extension) => [extension.extnID, extension]));
    expect([...byId.keys()]).toEqual(['2.5.29.19', '2.5.29.15', '2.5.29.14', '2.5.29.35']);

    const basicConstraints = byId.get('2.5.29.19')!;
    expect(basicConstraints.critical).toBe(true);
    expect(basicConstraints.parsedValue).toEqual(expect.objectContaining({ cA: true }));
    expect('pathLenConstraint' in basicConstraints.parsedValue).toBe(false);

    const keyUsage = byId.get('2.5.29.15')!;
    expect(keyUsage.critical).toBe(true);
    expect(Buffer.from((keyUsage.parsedValue as asn1js.BitString).valueBlock.valueHexView)).toEqual(
      Buffer.of(0x06),
    );

    const ski = byId.get('2.5.29.14')!;
    expect(ski.critical).toBe(false);
    expect(Buffer.from((ski.parsedValue as asn1js.OctetString).valueBlock.valueHexView)).toEqual(keyId);
    expect(parseCertificate(await buildCaCertificate(profile(), keys)).subjectKeyIdentifierHex).toBe(
      keyId.toString('hex').toUpperCase(),
    );

    const aki = byId.get('2.5.29.35')!;
    expect(aki.critical).toBe(false);
    const authorityKeyId = (aki.parsedValue as pkijs.AuthorityKeyIdentifier).keyIdentifier!;
    expect(Buffer.from(authorityKeyId.valueBlock.valueHexView)).toEqual(keyId);
  });

  it('signs with a non-extractable private key (as custody hands it out)', async () => {
    expect(keys.privateKey.extractable).toBe(false);
    await expect(buildCaCertificate(profile(), keys)).resolves.toBeInstanceOf(Uint8Array);
  });

  it('lints before signing: a serial of fewer than 64 bits is refused', async () => {
    await expect(
      buildCaCertificate(profile({ serialNumber: Uint8Array.of(0x01, 0x02) }), keys),
    ).rejects.toMatchObject({
      code: 'CERTIFICATE_LINT_FAILED',
      errors: [{ field: 'e_cert_serial_number_low_entropy', message: expect.any(String) }],
    });
  });

  it('refuses a private key that does not belong to the public key', async () => {
    const other = await generateEcKeyPair(false);
    await expect(
      buildCaCertificate(profile(), { publicKey: keys.publicKey, privateKey: other.privateKey }),
    ).rejects.toThrow('The private key does not match the public key');
  });

  it.each([
    ['notAfter before notBefore', { notAfter: new Date('2025-01-01T00:00:00Z') }, /notAfter must be later/],
    ['an equal notAfter', { notAfter: new Date('2026-01-01T00:00:00.500Z') }, /notAfter must be later/],
    ['a negative serial', { serialNumber: Uint8Array.of(0x80) }, /positive/],
    ['a serial over 20 octets', { serialNumber: new Uint8Array(21).fill(1) }, /1 to 20 octets/],
    ['a bad country', { subject: { commonName: 'x', country: 'usa' } }, /country/],
  ])('refuses %s', async (_case, overrides, message) => {
    await expect(buildCaCertificate(profile(overrides), keys)).rejects.toThrow(message);
  });
});
