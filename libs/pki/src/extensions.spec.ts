import { createHash } from 'node:crypto';

import * as pkijs from 'pkijs';

import { exportSpkiDer, generateEcKeyPair } from './ec-key-pair';
import {
  authorityKeyIdentifierExtension,
  basicConstraintsExtension,
  keyIdentifier,
  keyUsageExtension,
  subjectKeyIdentifierExtension,
} from './extensions';

const hex = (extension: pkijs.Extension) => Buffer.from(extension.toSchema().toBER(false)).toString('hex');

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
