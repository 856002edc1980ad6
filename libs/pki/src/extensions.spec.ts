import { createHash } from 'node:crypto';

import * as pkijs from 'pkijs';

import { exportSpkiDer, generateEcKeyPair } from './ec-key-pair';
import {
  authorityInfoAccessExtension,
  authorityKeyIdentifierExtension,
  basicConstraintsExtension,
  crlDistributionPointsExtension,
  customExtension,
  extendedKeyUsageExtension,
  isObjectIdentifier,
  keyIdentifier,
  keyUsageExtension,
  ocspNoCheckExtension,
  subjectAltNameExtension,
  subjectKeyIdentifierExtension,
  tlsFeatureMustStapleExtension,
} from './extensions';

const hex = (extension: pkijs.Extension) => Buffer.from(extension.toSchema().toBER(false)).toString('hex');
const ascii = (text: string) => Buffer.from(text, 'latin1').toString('hex');

describe('certificate extensions (DER)', () => {
  it('basicConstraints cA TRUE, critical, without pathLen', () => {
    // SEQUENCE { OID 2.5.29.19, BOOLEAN TRUE, OCTET STRING { SEQUENCE { BOOLEAN TRUE } } }
    expect(hex(basicConstraintsExtension({ cA: true }))).toBe('300f0603551d130101ff040530030101ff');
  });

  it('basicConstraints cA FALSE leaves out the DEFAULT value; pathLen when asked', () => {
    expect(hex(basicConstraintsExtension({ cA: false }))).toBe('300c0603551d130101ff04023000');
    expect(hex(basicConstraintsExtension({ cA: true, pathLenConstraint: 0 }))).toBe(
      '30120603551d130101ff040830060101ff020100',
    );
  });

  // SEQUENCE { OID 2.5.29.15, BOOLEAN TRUE, OCTET STRING { BIT STRING } }; the BIT STRING's first
  // content octet counts the unused trailing bits, which DER requires to be as many as possible.
  it.each([
    // Bits 5 and 6: 0b0000_0110, one unused bit.
    [['keyCertSign', 'cRLSign'], '300e0603551d0f0101ff04040302' + '0106'],
    // Bit 0 alone: 0b1000_0000, seven unused bits.
    [['digitalSignature'], '300e0603551d0f0101ff04040302' + '0780'],
    [['digitalSignature', 'keyCertSign', 'cRLSign'], '300e0603551d0f0101ff04040302' + '0186'],
    // Bit 8 spills into a second octet.
    [['digitalSignature', 'decipherOnly'], '300f0603551d0f0101ff04050303' + '078080'],
  ] as const)('keyUsage %j is %s', (usages, der) => {
    expect(hex(keyUsageExtension(usages))).toBe(der);
  });

  it('keyUsage needs a bit', () => {
    expect(() => keyUsageExtension([])).toThrow(RangeError);
  });

  it('keyIdentifier is the SHA-1 of the subjectPublicKey bits, RFC 5280 4.2.1.2 method 1', async () => {
    const spki = await exportSpkiDer((await generateEcKeyPair(false)).publicKey);
    const point = spki.subarray(spki.length - 65); // the BIT STRING value after its unused-bits octet
    const expected = createHash('sha1').update(point).digest();
    expect(Buffer.from(keyIdentifier(pkijs.PublicKeyInfo.fromBER(spki)))).toEqual(expected);
  });

  it('SKI and AKI carry the key identifier and are not critical', () => {
    const keyId = Uint8Array.of(0xab, 0xcd);
    // SEQUENCE { OID 2.5.29.14, OCTET STRING { OCTET STRING abcd } }
    expect(hex(subjectKeyIdentifierExtension(keyId))).toBe('300b0603551d0e04040402abcd');
    // SEQUENCE { OID 2.5.29.35, OCTET STRING { SEQUENCE { [0] abcd } } }
    expect(hex(authorityKeyIdentifierExtension(keyId))).toBe('300d0603551d230406300480' + '02abcd');
  });
});

describe('leaf and OCSP-signer extensions (DER)', () => {
  it('extendedKeyUsage is a non-critical SEQUENCE OF KeyPurposeId, in the given order, without repeats', () => {
    // SEQUENCE { OID 2.5.29.37, OCTET STRING { SEQUENCE { id-kp-serverAuth, id-kp-clientAuth } } }
    expect(hex(extendedKeyUsageExtension(['serverAuth', 'clientAuth', 'serverAuth']))).toBe(
      '301d0603551d250416301406082b0601050507030106082b06010505070302',
    );
    // id-kp-OCSPSigning 1.3.6.1.5.5.7.3.9
    expect(hex(extendedKeyUsageExtension(['ocspSigning']))).toBe(
      '30130603551d25040c300a06082b06010505070309',
    );
    expect(() => extendedKeyUsageExtension([])).toThrow(RangeError);
  });

  it('subjectAltName writes each DNS name as [2] IA5String, wildcards unchanged', () => {
    // SEQUENCE { OID 2.5.29.17, OCTET STRING { SEQUENCE { [2] "*.example.com", [2] "a.test" } } }
    expect(hex(subjectAltNameExtension(['*.example.com', 'a.test']))).toBe(
      '30200603551d1104193017820d' + ascii('*.example.com') + '8206' + ascii('a.test'),
    );
  });

  it.each([
    [[]],
    [['']],
    [['with space.example']],
    [['*.*.example.com']],
    [['a.*.example.com']],
    [['*']],
    [['bücher.example']],
    [['trailing.dot.']],
    [['-leading-hyphen.example']],
    [[`${'a'.repeat(64)}.example`]],
    [[`${'a.'.repeat(127)}a`]],
  ])('subjectAltName refuses %j', (names) => {
    expect(() => subjectAltNameExtension(names)).toThrow(RangeError);
  });

  it('subjectAltName accepts the longest labels and names DNS allows', () => {
    expect(() =>
      subjectAltNameExtension([`${'a'.repeat(63)}.example`, `${'a.'.repeat(126)}a`]),
    ).not.toThrow();
  });

  it('CRL Distribution Points: one DistributionPoint with a fullName URI', () => {
    const url = 'http://pki.example/crl';
    // SEQUENCE OF DistributionPoint { [0] distributionPoint { [0] fullName { [6] URI } } }
    expect(hex(crlDistributionPointsExtension(url))).toBe(
      '30270603551d1f0420301e301ca01aa0188616' + ascii(url),
    );
  });

  it('Authority Information Access: id-ad-ocsp then id-ad-caIssuers, each with a URI', () => {
    expect(hex(authorityInfoAccessExtension({ caIssuers: 'http://c/', ocsp: 'http://o/' }))).toBe(
      [
        '303c06082b06010505070101' + '0430' + '302e', // id-pe-authorityInfoAccess, SEQUENCE OF
        '3015' + '06082b06010505073001' + '8609' + ascii('http://o/'), // { id-ad-ocsp, [6] URI }
        '3015' + '06082b06010505073002' + '8609' + ascii('http://c/'), // { id-ad-caIssuers, [6] URI }
      ].join(''),
    );
    expect(hex(authorityInfoAccessExtension({ ocsp: 'http://o/' }))).toBe(
      '302506082b060105050701010419' + '3017' + '3015' + '06082b06010505073001' + '8609' + ascii('http://o/'),
    );
    expect(() => authorityInfoAccessExtension({})).toThrow(RangeError);
  });

  it.each(['', 'relative/path', 'http://bad host/', 'http://bücher.example/', 'http://x/\n'])(
    'refuses the URI %j',
    (url) => {
      expect(() => crlDistributionPointsExtension(url)).toThrow(RangeError);
      expect(() => authorityInfoAccessExtension({ ocsp: url })).toThrow(RangeError);
    },
  );

  it('TLS Feature must-staple is SEQUENCE { INTEGER 5 } (RFC 7633), not critical', () => {
    expect(hex(tlsFeatureMustStapleExtension())).toBe(
      '30110608' + '2b06010505070118' + '0405' + '3003020105',
    );
  });

  it('id-pkix-ocsp-nocheck carries NULL, not critical', () => {
    expect(hex(ocspNoCheckExtension())).toBe('300f0609' + '2b0601050507300105' + '0402' + '0500');
  });

  it('a custom extension keeps its pre-encoded value and is not critical', () => {
    const utf8 = Uint8Array.of(0x0c, 0x02, 0x68, 0x69); // UTF8String "hi"
    // SEQUENCE { OID 1.3.6.1.4.1.99999.2.1, OCTET STRING { UTF8String "hi" } }
    expect(hex(customExtension('1.3.6.1.4.1.99999.2.1', utf8))).toBe(
      '3012060a2b06010401868d1f0201' + '0404' + '0c026869',
    );
  });

  it.each([
    ['a bad OID', '1.3.6.', Uint8Array.of(0x05, 0x00), /object identifier/],
    ['an empty value', '1.2.3', new Uint8Array(), /exactly one DER element/],
    ['a truncated value', '1.2.3', Uint8Array.of(0x0c, 0x05, 0x68), /exactly one DER element/],
    ['two elements', '1.2.3', Uint8Array.of(0x05, 0x00, 0x05, 0x00), /exactly one DER element/],
  ])('a custom extension refuses %s', (_case, oid, value, message) => {
    expect(() => customExtension(oid, value)).toThrow(message);
  });

  it.each([
    ['1.2.3', true],
    ['2.5.29.37.0', true],
    ['2.999.1', true],
    ['1.39', true],
    ['1.40', false],
    ['3.1', false],
    ['1', false],
    ['1.02', false],
    ['1..2', false],
    [' 1.2', false],
  ])('isObjectIdentifier(%j) is %s', (oid, expected) => {
    expect(isObjectIdentifier(oid)).toBe(expected);
  });
});
