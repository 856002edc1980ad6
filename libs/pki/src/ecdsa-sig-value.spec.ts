import { createPublicKey, KeyObject, verify, type webcrypto } from 'node:crypto';

import { exportSpkiDer, generateEcKeyPair } from './ec-key-pair';
import { ecdsaSignatureToDer, signTbs } from './ecdsa-sig-value';

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const bytes = (value: string) => new Uint8Array(Buffer.from(value, 'hex'));

describe('ecdsaSignatureToDer (RFC 3279 2.2.3 Ecdsa-Sig-Value)', () => {
  it('writes r and s as minimal positive INTEGERs', () => {
    const r = '7f' + '11'.repeat(31);
    const s = '80' + '22'.repeat(31);
    expect(hex(ecdsaSignatureToDer(bytes(r + s)))).toBe(`3045 0220${r} 022100${s}`.replace(/\s/g, ''));
  });

  it('drops leading zero octets, keeping the one a set top bit needs', () => {
    const r = '0000' + '01'.repeat(30);
    const s = '00' + '90'.repeat(31);
    expect(hex(ecdsaSignatureToDer(bytes(r + s)))).toBe(
      `3042 021e${'01'.repeat(30)} 022000${'90'.repeat(31)}`.replace(/\s/g, ''),
    );
  });

  it('rejects an odd or empty input', () => {
    expect(() => ecdsaSignatureToDer(new Uint8Array(63))).toThrow(RangeError);
    expect(() => ecdsaSignatureToDer(new Uint8Array(0))).toThrow(RangeError);
  });
});

describe('signTbs', () => {
  it('signs with ECDSA P-256 and SHA-256; node:crypto verifies the DER signature', async () => {
    const keys = await generateEcKeyPair(false);
    const publicKey = createPublicKey({
      key: Buffer.from(await exportSpkiDer(keys.publicKey)),
      format: 'der',
      type: 'spki',
    });
    const tbs = new Uint8Array(Buffer.from('30030201 01', 'hex'));
    for (let i = 0; i < 20; i++) {
      const signature = await signTbs(tbs, keys.privateKey);
      expect(signature[0]).toBe(0x30);
      expect(verify('sha256', tbs, publicKey, signature)).toBe(true);
    }
  });

  it('refuses a public key or a key of a curve no CA holds', async () => {
    const keys = await generateEcKeyPair(false);
    await expect(signTbs(new Uint8Array(1), keys.publicKey)).rejects.toThrow(TypeError);
    const p521 = await globalThis.crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-521' }, false, [
      'sign',
    ]);
    await expect(signTbs(new Uint8Array(1), p521.privateKey)).rejects.toThrow(/P-521/);
  });

  it.each([
    ['P-384 with SHA-384', { name: 'ECDSA', namedCurve: 'P-384' }, 'sha384', 0x30],
    [
      'RSA with SHA-256 (PKCS #1 v1.5 octets, not DER)',
      {
        name: 'RSASSA-PKCS1-v1_5',
        modulusLength: 3072,
        publicExponent: Uint8Array.of(1, 0, 1),
        hash: 'SHA-256',
      },
      'sha256',
      undefined,
    ],
  ] as const)('signs with a %s key', async (_name, params, hash, firstOctet) => {
    const keys = (await globalThis.crypto.subtle.generateKey(params, true, [
      'sign',
      'verify',
    ])) as webcrypto.CryptoKeyPair;
    const tbs = new TextEncoder().encode('a to-be-signed structure');
    const signature = await signTbs(tbs, keys.privateKey);
    if (firstOctet !== undefined) expect(signature[0]).toBe(firstOctet);
    else expect(signature).toHaveLength(384);
    const publicKey = KeyObject.from(keys.publicKey);
    expect(verify(hash, tbs, publicKey, signature)).toBe(true);
  });
});
