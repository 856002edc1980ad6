import { createPublicKey, generateKeyPairSync, type webcrypto } from 'node:crypto';
import {
  importLeafPublicKey,
  leafKeyAlgorithmOfSpki,
  publicKeyObjectOfSpki,
  spkiOfPublicKey,
} from './leaf-public-key';
import { PkiFormatError } from './pki-format.error';

const ALLOWED = ['P-256', 'P-384', 'RSA-3072', 'RSA-4096'];

const p256Spki = () =>
  new Uint8Array(
    generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).publicKey.export({ type: 'spki', format: 'der' }),
  );

const exported = async (key: webcrypto.CryptoKey) =>
  new Uint8Array(await globalThis.crypto.subtle.exportKey('spki', key));

describe('importLeafPublicKey', () => {
  it('imports an uncompressed P-256 key whose SubjectPublicKeyInfo is the one a certificate gets', async () => {
    const spki = p256Spki();
    const { publicKey, algorithm } = await importLeafPublicKey(spki, ALLOWED);
    expect(algorithm).toBe('P-256');
    expect(publicKey.algorithm).toMatchObject({ name: 'ECDSA', namedCurve: 'P-256' });
    expect(await spkiOfPublicKey(publicKey)).toEqual(spki);
    expect(await spkiOfPublicKey(publicKey)).toEqual(await exported(publicKey));
  });

  it('refuses a P-256 point that is not on the curve', async () => {
    const spki = p256Spki();
    spki[spki.length - 1] ^= 1;
    await expect(importLeafPublicKey(spki, ALLOWED)).rejects.toBeInstanceOf(PkiFormatError);
  });

  it('certifies a compressed P-256 point in its uncompressed encoding', async () => {
    const uncompressed = p256Spki();
    const x = uncompressed.subarray(27, 59);
    const yOdd = uncompressed[90] & 1;
    const compressed = Buffer.concat([
      Buffer.from('3039301306072a8648ce3d020106082a8648ce3d030107032200', 'hex'),
      Buffer.of(yOdd ? 0x03 : 0x02),
      x,
    ]);
    const { publicKey } = await importLeafPublicKey(new Uint8Array(compressed), ALLOWED);
    expect(await spkiOfPublicKey(publicKey)).toEqual(uncompressed);
  });

  it('refuses a key of an algorithm not allowed (RSA-2048)', async () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey;
    const spki = new Uint8Array(rsa.export({ type: 'spki', format: 'der' }));
    await expect(importLeafPublicKey(spki, ALLOWED)).rejects.toThrow(PkiFormatError);
  });

  it('names an RSA-2048 key and imports it where the caller allows it (a deployment that chose it)', async () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey;
    const spki = new Uint8Array(rsa.export({ type: 'spki', format: 'der' }));
    expect(leafKeyAlgorithmOfSpki(spki)).toBe('RSA-2048');
    const { algorithm, publicKey } = await importLeafPublicKey(spki, [...ALLOWED, 'RSA-2048']);
    expect(algorithm).toBe('RSA-2048');
    expect(publicKey.algorithm).toMatchObject({ name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048 });
  });

  it('names no RSA key of another size', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey;
    expect(
      leafKeyAlgorithmOfSpki(new Uint8Array(rsa.export({ type: 'spki', format: 'der' }))),
    ).toBeUndefined();
  });
});

describe('publicKeyObjectOfSpki', () => {
  it('makes the same key as OpenSSL decodes from the SubjectPublicKeyInfo, P-256 and others', () => {
    for (const spki of [
      p256Spki(),
      new Uint8Array(
        generateKeyPairSync('ec', { namedCurve: 'secp384r1' }).publicKey.export({
          type: 'spki',
          format: 'der',
        }),
      ),
    ]) {
      const key = publicKeyObjectOfSpki(spki);
      expect(new Uint8Array(key.export({ type: 'spki', format: 'der' }))).toEqual(spki);
    }
  });

  it('refuses a P-256 point that is not on the curve, as the decoder does', () => {
    const spki = p256Spki();
    spki[spki.length - 1] ^= 1;
    expect(() => publicKeyObjectOfSpki(spki)).toThrow();
    expect(() => createPublicKey({ key: Buffer.from(spki), format: 'der', type: 'spki' })).toThrow();
  });
});
