import type { webcrypto } from 'node:crypto';

import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';

import { buildCaCertificate } from './ca-certificate.builder';
import { parseCertificate } from './certificate.parser';
import { exportSpkiDer, generateEcKeyPair } from './ec-key-pair';
import { basicConstraintsExtension, keyIdentifier } from './extensions';
import { toHex } from './hex';
import {
  buildLeafCertificate,
  type IssuerKey,
  type LeafCertificateProfile,
} from './leaf-certificate.builder';
import { PkiFormatError } from './pki-format.error';
import { randomSerialNumber, serialToHex } from './serial-number';

const caSubject = {
  country: 'US',
  organization: 'Acme',
  organizationalUnit: 'PKI',
  commonName: 'Acme Root CA',
};
const caNotAfter = new Date('2036-01-01T00:00:00Z');
const subject = {
  country: 'DE',
  organization: 'Tenant GmbH',
  organizationalUnit: 'Ops',
  commonName: 'svc-1',
};
const utf8 = (text: string) => new Uint8Array(new asn1js.Utf8String({ value: text }).toBER(false));

const minimalProfile = (overrides: Partial<LeafCertificateProfile> = {}): LeafCertificateProfile => ({
  subject,
  notBefore: new Date('2026-06-01T00:00:00Z'),
  notAfter: new Date('2027-06-01T00:00:00Z'),
  serialNumber: randomSerialNumber(),
  extendedKeyUsages: ['clientAuth'],
  ...overrides,
});

const fullProfile = (overrides: Partial<LeafCertificateProfile> = {}): LeafCertificateProfile =>
  minimalProfile({
    extendedKeyUsages: ['serverAuth', 'clientAuth'],
    dnsNames: ['api.example.com', '*.example.com'],
    mustStaple: true,
    customExtensions: [
      { oid: '1.3.6.1.4.1.99999.2.1', value: utf8('team=payments') },
      { oid: '1.3.6.1.4.1.99999.2.2', value: utf8('Zürich') },
    ],
    crlDistributionPointUrl: 'https://pki.example.com/v1/tenants/t1/crl',
    ocspUrl: 'https://pki.example.com/v1/tenants/t1/ocsp',
    caIssuersUrl: 'https://pki.example.com/v1/tenants/t1/ca.crt',
    ...overrides,
  });

const extensionsById = (der: Uint8Array) =>
  new Map(pkijs.Certificate.fromBER(der).extensions!.map((extension) => [extension.extnID, extension]));

describe('buildLeafCertificate', () => {
  let caKeys: webcrypto.CryptoKeyPair;
  let issuer: IssuerKey;
  let leafKeys: webcrypto.CryptoKeyPair;

  beforeAll(async () => {
    caKeys = await generateEcKeyPair(false);
    const certificateDer = await buildCaCertificate(
      {
        subject: caSubject,
        notBefore: new Date('2026-01-01T00:00:00Z'),
        notAfter: caNotAfter,
        serialNumber: randomSerialNumber(),
      },
      caKeys,
    );
    issuer = { certificateDer, privateKey: caKeys.privateKey };
    leafKeys = await generateEcKeyPair(false);
  });

  it('reads back every field of a full profile through parseCertificate', async () => {
    const serialNumber = randomSerialNumber();
    const der = await buildLeafCertificate(fullProfile({ serialNumber }), leafKeys.publicKey, issuer);
    const ca = parseCertificate(issuer.certificateDer);
    const leafKeyId = keyIdentifier(pkijs.PublicKeyInfo.fromBER(await exportSpkiDer(leafKeys.publicKey)));
    const info = parseCertificate(der);
    expect(info).toEqual({
      serialNumberHex: serialToHex(serialNumber),
      subject,
      subjectDer: expect.any(Uint8Array),
      issuer: caSubject,
      notBefore: new Date('2026-06-01T00:00:00Z'),
      notAfter: new Date('2027-06-01T00:00:00Z'),
      isCa: false,
      subjectKeyIdentifierHex: toHex(leafKeyId),
      authorityKeyIdentifierHex: ca.subjectKeyIdentifierHex,
      sha256FingerprintHex: expect.stringMatching(/^[0-9A-F]{64}$/),
      extendedKeyUsages: ['serverAuth', 'clientAuth'],
      dnsNames: ['api.example.com', '*.example.com'],
      crlDistributionPointUrls: ['https://pki.example.com/v1/tenants/t1/crl'],
      ocspUrls: ['https://pki.example.com/v1/tenants/t1/ocsp'],
      caIssuersUrls: ['https://pki.example.com/v1/tenants/t1/ca.crt'],
      mustStaple: true,
      customExtensions: [],
      extensionOids: [
        '2.5.29.19',
        '2.5.29.15',
        '2.5.29.37',
        '2.5.29.14',
        '2.5.29.35',
        '2.5.29.17',
        '2.5.29.31',
        '1.3.6.1.5.5.7.1.1',
        '1.3.6.1.5.5.7.1.24',
        '1.3.6.1.4.1.99999.2.1',
        '1.3.6.1.4.1.99999.2.2',
      ],
    });
  });

  it('writes a v3 certificate signed ecdsa-with-SHA256 by the CA, verifiable with the CA certificate', async () => {
    const der = await buildLeafCertificate(fullProfile(), leafKeys.publicKey, issuer);
    const certificate = pkijs.Certificate.fromBER(der);
    expect(certificate.version).toBe(2);
    expect(certificate.signatureAlgorithm.algorithmId).toBe('1.2.840.10045.4.3.2');
    expect(certificate.signatureAlgorithm.algorithmParams).toBeUndefined(); // RFC 5758 3.2: absent
    expect(await certificate.verify(pkijs.Certificate.fromBER(issuer.certificateDer))).toBe(true);
    expect(await certificate.verify(certificate)).toBe(false);
    // The outer SEQUENCE is assembled around the signed octets; pkijs re-encodes it identically.
    expect(Buffer.from(certificate.toSchema(true).toBER(false))).toEqual(Buffer.from(der));
    // The certificate carries the subject's key, not the CA's.
    expect(Buffer.from(certificate.subjectPublicKeyInfo.toSchema().toBER(false))).toEqual(
      Buffer.from(await exportSpkiDer(leafKeys.publicKey)),
    );
  });

  it('marks basicConstraints and keyUsage critical and nothing else', async () => {
    const byId = extensionsById(await buildLeafCertificate(fullProfile(), leafKeys.publicKey, issuer));
    const critical = [...byId.values()].filter((extension) => extension.critical).map(({ extnID }) => extnID);
    expect(critical).toEqual(['2.5.29.19', '2.5.29.15']);
    // cA FALSE is the DEFAULT and so absent: an empty SEQUENCE.
    expect(Buffer.from(byId.get('2.5.29.19')!.extnValue.valueBlock.valueHexView).toString('hex')).toBe(
      '3000',
    );
  });

  it('sets digitalSignature, and keyEncipherment when asked (an RSA server key)', async () => {
    const keyUsage = async (profile: LeafCertificateProfile, publicKey = leafKeys.publicKey) => {
      const value = extensionsById(await buildLeafCertificate(profile, publicKey, issuer)).get('2.5.29.15')!;
      return Buffer.from(value.extnValue.valueBlock.valueHexView).toString('hex');
    };
    expect(await keyUsage(minimalProfile())).toBe('03020780'); // bit 0, seven unused bits
    const rsa = await globalThis.crypto.subtle.generateKey(
      {
        name: 'RSASSA-PKCS1-v1_5',
        modulusLength: 2048,
        publicExponent: Uint8Array.of(1, 0, 1),
        hash: 'SHA-256',
      },
      false,
      ['sign', 'verify'],
    );
    expect(await keyUsage(minimalProfile({ keyEncipherment: true }), rsa.publicKey)).toBe('030205a0'); // bits 0, 2
  });

  it('writes only the five mandatory extensions for a minimal profile', async () => {
    const info = parseCertificate(
      await buildLeafCertificate(
        minimalProfile({ dnsNames: [], customExtensions: [] }),
        leafKeys.publicKey,
        issuer,
      ),
    );
    expect(info.extensionOids).toEqual(['2.5.29.19', '2.5.29.15', '2.5.29.37', '2.5.29.14', '2.5.29.35']);
    expect(info).toEqual(
      expect.objectContaining({ extendedKeyUsages: ['clientAuth'], dnsNames: [], mustStaple: false }),
    );
  });

  it('writes a delegated OCSP signer: EKU OCSPSigning and id-pkix-ocsp-nocheck (NULL)', async () => {
    const der = await buildLeafCertificate(
      minimalProfile({ extendedKeyUsages: ['ocspSigning'], ocspNoCheck: true }),
      leafKeys.publicKey,
      issuer,
    );
    expect(parseCertificate(der).extendedKeyUsages).toEqual(['ocspSigning']);
    const noCheck = extensionsById(der).get('1.3.6.1.5.5.7.48.1.5')!;
    expect(noCheck.critical).toBe(false);
    expect(Buffer.from(noCheck.extnValue.valueBlock.valueHexView).toString('hex')).toBe('0500');
  });

  it('writes AIA with only the URL given', async () => {
    const info = parseCertificate(
      await buildLeafCertificate(
        minimalProfile({ caIssuersUrl: 'http://x.test/ca.crt' }),
        leafKeys.publicKey,
        issuer,
      ),
    );
    expect(info).toEqual(expect.objectContaining({ ocspUrls: [], caIssuersUrls: ['http://x.test/ca.crt'] }));
  });

  it('copies the issuer Name byte for byte and takes the AKI from the issuer key when the CA has no SKI', async () => {
    // A CA written by other software: a PrintableString O and CN in one multi-valued RDN, no SKI.
    // encodeName would write something else (UTF8String, one RDN each), so only a copy chains.
    const foreignName = new pkijs.RelativeDistinguishedNames({
      typesAndValues: [
        new pkijs.AttributeTypeAndValue({
          type: '2.5.4.10',
          value: new asn1js.PrintableString({ value: 'Old' }),
        }),
        new pkijs.AttributeTypeAndValue({
          type: '2.5.4.3',
          value: new asn1js.PrintableString({ value: 'Old CA' }),
        }),
      ],
    });
    const ca = new pkijs.Certificate({
      version: 2,
      serialNumber: new asn1js.Integer({ value: 7 }),
      issuer: foreignName,
      subject: foreignName,
      notBefore: new pkijs.Time({ type: pkijs.TimeType.UTCTime, value: new Date('2026-01-01T00:00:00Z') }),
      notAfter: new pkijs.Time({ type: pkijs.TimeType.UTCTime, value: new Date('2036-01-01T00:00:00Z') }),
      extensions: [basicConstraintsExtension({ cA: true })],
    });
    await ca.subjectPublicKeyInfo.importKey(caKeys.publicKey);
    await ca.sign(caKeys.privateKey, 'SHA-256');
    const caDer = new Uint8Array(ca.toSchema().toBER(false));

    const der = await buildLeafCertificate(minimalProfile(), leafKeys.publicKey, {
      certificateDer: caDer,
      privateKey: caKeys.privateKey,
    });
    const leaf = pkijs.Certificate.fromBER(der);
    const caSubjectDer = Buffer.from(pkijs.Certificate.fromBER(caDer).subject.toSchema().toBER(false));
    expect(Buffer.from(leaf.issuer.toSchema().toBER(false))).toEqual(caSubjectDer);
    expect(Buffer.from(der).includes(caSubjectDer)).toBe(true);
    expect(parseCertificate(der).authorityKeyIdentifierHex).toBe(
      toHex(keyIdentifier(ca.subjectPublicKeyInfo)),
    );
    expect(await leaf.verify(pkijs.Certificate.fromBER(caDer))).toBe(true);
  });

  it('keeps signing verifiable certificates once the CA key has been checked', async () => {
    const ca = pkijs.Certificate.fromBER(issuer.certificateDer);
    for (let i = 0; i < 3; i++) {
      const der = await buildLeafCertificate(minimalProfile(), leafKeys.publicKey, issuer);
      expect(await pkijs.Certificate.fromBER(der).verify(ca)).toBe(true);
    }
  });

  it('signs with a non-extractable CA key and accepts a notAfter equal to the CA notAfter', async () => {
    expect(caKeys.privateKey.extractable).toBe(false);
    const der = await buildLeafCertificate(
      minimalProfile({ notAfter: caNotAfter }),
      leafKeys.publicKey,
      issuer,
    );
    expect(parseCertificate(der).notAfter).toEqual(caNotAfter);
  });

  it.each([
    [
      'a notAfter after the CA notAfter',
      { notAfter: new Date('2036-01-01T00:00:01Z') },
      /later than the issuer/,
    ],
    [
      'a notBefore before the CA notBefore',
      { notBefore: new Date('2025-12-31T23:59:59Z') },
      /earlier than the issuer's notBefore/,
    ],
    ['a notAfter before notBefore', { notAfter: new Date('2026-05-01T00:00:00Z') }, /notAfter must be later/],
    ['an equal notAfter', { notAfter: new Date('2026-06-01T00:00:00.900Z') }, /notAfter must be later/],
    ['no extended key usage', { extendedKeyUsages: [] }, /at least one purpose/],
    ['a multi-level wildcard', { dnsNames: ['*.*.example.com'] }, /Not a DNS name/],
    ['an IDN in U-label form', { dnsNames: ['bücher.example'] }, /Not a DNS name/],
    ['a relative CRL URL', { crlDistributionPointUrl: '/crl' }, /Not an absolute ASCII URI/],
    ['an empty OCSP URL', { ocspUrl: '' }, /Not an absolute ASCII URI/],
    [
      'a custom extension that is not DER',
      { customExtensions: [{ oid: '1.2.3', value: Uint8Array.of(1) }] },
      /DER/,
    ],
    [
      'a custom extension OID used twice',
      { customExtensions: [1, 2].map(() => ({ oid: '1.3.6.1.4.1.99999.2.1', value: utf8('x') })) },
      /1\.3\.6\.1\.4\.1\.99999\.2\.1 would appear twice/,
    ],
    [
      'a custom extension that duplicates a standard one',
      { customExtensions: [{ oid: '2.5.29.37', value: utf8('x') }] },
      /2\.5\.29\.37 would appear twice/,
    ],
    ['a negative serial', { serialNumber: Uint8Array.of(0xff) }, /positive/],
    ['an empty common name', { subject: { commonName: '' } }, /commonName must have 1 to 64/],
  ])('refuses %s with a RangeError', async (_case, overrides, message) => {
    const build = buildLeafCertificate(minimalProfile(overrides), leafKeys.publicKey, issuer);
    await expect(build).rejects.toThrow(RangeError);
    await expect(buildLeafCertificate(minimalProfile(overrides), leafKeys.publicKey, issuer)).rejects.toThrow(
      message,
    );
  });

  it('refuses an issuer certificate that is not a CA', async () => {
    const leafDer = await buildLeafCertificate(minimalProfile(), leafKeys.publicKey, issuer);
    await expect(
      buildLeafCertificate(minimalProfile(), leafKeys.publicKey, {
        certificateDer: leafDer,
        privateKey: caKeys.privateKey,
      }),
    ).rejects.toThrow('The issuer certificate is not a CA certificate');
  });

  it('refuses a CA private key that does not belong to the issuer certificate, also after a good one', async () => {
    await buildLeafCertificate(minimalProfile(), leafKeys.publicKey, issuer);
    const other = await generateEcKeyPair(false);
    await expect(
      buildLeafCertificate(minimalProfile(), leafKeys.publicKey, { ...issuer, privateKey: other.privateKey }),
    ).rejects.toThrow('The issuer private key does not match the issuer certificate');
  });

  it('refuses an issuer certificate that is not DER with a PkiFormatError', async () => {
    await expect(
      buildLeafCertificate(minimalProfile(), leafKeys.publicKey, {
        ...issuer,
        certificateDer: Uint8Array.of(1),
      }),
    ).rejects.toThrow(PkiFormatError);
  });

  it('refuses a private key in place of the subject public key', async () => {
    await expect(buildLeafCertificate(minimalProfile(), leafKeys.privateKey, issuer)).rejects.toThrow(
      'subjectPublicKey must be a public key',
    );
  });
});
