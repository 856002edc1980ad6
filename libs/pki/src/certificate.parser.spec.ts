import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';

import { parseCertificate } from './certificate.parser';
import { generateEcKeyPair } from './ec-key-pair';
import { pemToDer } from './pem';
import { PkiFormatError } from './pki-format.error';

const fixture = (file: string) => pemToDer(readFileSync(join(__dirname, 'testdata', file), 'utf8'));

describe('parseCertificate', () => {
  it('reads a root made by openssl as openssl prints it', () => {
    const name = {
      country: 'DE',
      organization: 'Fixture GmbH',
      organizationalUnit: 'Ops',
      commonName: 'Fixture Root',
    };
    expect(parseCertificate(fixture('openssl-p256-root.pem'))).toEqual({
      serialNumberHex: '8F0102030405060708090A0B0C0D0E0F',
      subject: name,
      subjectDer: expect.any(Uint8Array),
      issuer: name,
      notBefore: new Date('2026-11-22T00:33:37Z'),
      notAfter: new Date('2062-06-26T00:33:37Z'),
      isCa: true,
      subjectKeyIdentifierHex: '482BCC32426313401F9612ACB91E1D51F93E3501',
      authorityKeyIdentifierHex: '482BCC32426313401F9612ACB91E1D51F93E3501',
      sha256FingerprintHex: '511EAC304569F2DC4CD6A0F21777E47BB930C669662F678A37AFB6BBA00142F5',
      extendedKeyUsages: [],
      dnsNames: [],
      crlDistributionPointUrls: [],
      ocspUrls: [],
      caIssuersUrls: [],
      mustStaple: false,
      extensionOids: ['2.5.29.14', '2.5.29.35', '2.5.29.19'],
      customExtensions: [],
    });
  });

  it('gives the subject Name octets as the certificate holds them, even in a non-canonical order', () => {
    for (const file of ['openssl-p256-root.pem', 'openssl-v1-leaf.pem']) {
      const der = fixture(file);
      expect(Buffer.from(parseCertificate(der).subjectDer)).toEqual(
        Buffer.from(pkijs.Certificate.fromBER(der).subject.toSchema().toBER(false)),
      );
    }
  });

  it('reads a v1 certificate without extensions: not a CA, no SKI', () => {
    const info = parseCertificate(fixture('openssl-v1-leaf.pem'));
    expect(info).toEqual({
      serialNumberHex: '01',
      subject: { commonName: 'Plain Leaf', organization: 'Other Inc' },
      subjectDer: expect.any(Uint8Array),
      issuer: { commonName: 'Plain Leaf', organization: 'Other Inc' },
      notBefore: new Date('2026-11-22T00:33:41Z'),
      notAfter: new Date('2026-12-22T00:33:41Z'),
      isCa: false,
      sha256FingerprintHex: '6DE860BCAE7E8B14A674729531F57CC9062A2CF01C826A9138FAB91E46ABC804',
      extendedKeyUsages: [],
      dnsNames: [],
      crlDistributionPointUrls: [],
      ocspUrls: [],
      caIssuersUrls: [],
      mustStaple: false,
      extensionOids: [],
      customExtensions: [],
    });
    expect('subjectKeyIdentifierHex' in info).toBe(false);
    expect('authorityKeyIdentifierHex' in info).toBe(false);
  });

  it('reads the extensions of a leaf made by openssl as openssl prints them', () => {
    const info = parseCertificate(fixture('openssl-full-leaf.pem'));
    expect(info).toEqual({
      serialNumberHex: '0A0B',
      subject: { country: 'DE', organization: 'Fixture GmbH', commonName: 'Full Leaf' },
      subjectDer: expect.any(Uint8Array),
      issuer: { country: 'DE', organization: 'Fixture GmbH', commonName: 'Full Leaf' },
      notBefore: new Date('2026-11-22T00:47:08Z'),
      notAfter: new Date('2026-12-22T00:47:08Z'),
      isCa: false,
      subjectKeyIdentifierHex: 'DE0203CD37E86E7D1C2397DFFE4DFA504EF543E8',
      sha256FingerprintHex: 'F08ABF2CA27D848C377B606070AABB3398B339D5D5FD69A6E203F58D3B5DD6DA',
      // Unknown purposes come back as their OID.
      extendedKeyUsages: ['serverAuth', 'clientAuth', 'codeSigning', '1.2.3.4'],
      // The IP address and URI alternative names are not DNS names.
      dnsNames: ['*.example.com', 'example.com'],
      crlDistributionPointUrls: ['http://pki.example/crl', 'ldap://ldap.example/cn=crl'],
      ocspUrls: ['http://pki.example/ocsp', 'http://ocsp2.example/'],
      caIssuersUrls: ['http://pki.example/ca.crt'],
      mustStaple: true,
      customExtensions: [],
      extensionOids: [
        '2.5.29.19',
        '2.5.29.15',
        '2.5.29.37',
        '2.5.29.17',
        '2.5.29.31',
        '1.3.6.1.5.5.7.1.1',
        '1.3.6.1.5.5.7.1.24',
        '2.5.29.14',
        '1.3.6.1.4.1.99999.2.1',
      ],
    });
  });

  it('rejects a certificate whose known extension holds a malformed value', async () => {
    // Replace the EKU value (SEQUENCE OF OID) with a BOOLEAN and re-sign.
    const der = fixture('openssl-full-leaf.pem');
    const certificate = pkijs.Certificate.fromBER(der);
    const eku = certificate.extensions!.find(({ extnID }) => extnID === '2.5.29.37')!;
    eku.extnValue = new asn1js.OctetString({ valueHex: new asn1js.Boolean({ value: true }).toBER() });
    const { privateKey } = await generateEcKeyPair(false);
    await certificate.sign(privateKey, 'SHA-256');
    const broken = new Uint8Array(certificate.toSchema().toBER());
    expect(() => parseCertificate(broken)).toThrow(PkiFormatError);
    expect(() => parseCertificate(broken)).toThrow('Malformed value of extension 2.5.29.37');
  });

  it.each([
    ['empty input', new Uint8Array(), /Not DER/],
    ['garbage', Uint8Array.of(0xff, 0x01, 0x02), /Not DER/],
    [
      'a DER structure that is not a certificate',
      Uint8Array.of(0x30, 0x03, 0x02, 0x01, 0x01),
      /Not an X.509/,
    ],
  ])('rejects %s with a PkiFormatError', (_case, der, message) => {
    expect(() => parseCertificate(der)).toThrow(PkiFormatError);
    expect(() => parseCertificate(der)).toThrow(message);
  });

  it('rejects trailing bytes after the certificate', () => {
    const der = fixture('openssl-v1-leaf.pem');
    expect(() => parseCertificate(Uint8Array.of(...der, 0))).toThrow('Trailing bytes');
  });
});
