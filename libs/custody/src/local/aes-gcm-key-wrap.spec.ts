import type { webcrypto } from 'node:crypto';

import { KeyCustodyError } from '../key-custody.error';
import { unwrapPrivateKey, wrappedKeyVersion, wrapPrivateKey } from './aes-gcm-key-wrap';

const subtle = globalThis.crypto.subtle;
const aad = new TextEncoder().encode('tenant-1/key-1');
const P256: webcrypto.EcKeyImportParams = { name: 'ECDSA', namedCurve: 'P-256' };

describe('AES-256-GCM key wrap, format version 1', () => {
  let kek: webcrypto.CryptoKey;
  let pair: webcrypto.CryptoKeyPair;
  let pkcs8: Buffer;
  let wrapped: Uint8Array;

  beforeAll(async () => {
    kek = await subtle.importKey('raw', new Uint8Array(32).fill(7), 'AES-GCM', false, [
      'wrapKey',
      'unwrapKey',
    ]);
    pair = await subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify']);
    pkcs8 = Buffer.from(await subtle.exportKey('pkcs8', pair.privateKey));
    wrapped = await wrapPrivateKey(kek, pair.privateKey, aad);
  });

  it('is version | 12-octet IV | ciphertext as long as the PKCS#8 | 16-octet tag', () => {
    expect(wrapped[0]).toBe(1);
    expect(wrappedKeyVersion(wrapped)).toBe(1);
    expect(wrapped).toHaveLength(1 + 12 + pkcs8.length + 16);
  });

  it('contains neither the PKCS#8 nor the private scalar', async () => {
    const d = Buffer.from((await subtle.exportKey('jwk', pair.privateKey)).d!, 'base64url');
    expect(Buffer.from(wrapped).includes(pkcs8)).toBe(false);
    expect(Buffer.from(wrapped).includes(d)).toBe(false);
    expect(Buffer.from(wrapped).includes(d.subarray(0, 8))).toBe(false);
  });

  it('uses a fresh IV every time', async () => {
    const again = await wrapPrivateKey(kek, pair.privateKey, aad);
    expect(Buffer.from(again.subarray(1, 13)).equals(Buffer.from(wrapped.subarray(1, 13)))).toBe(false);
  });

  it('unwraps into a non-extractable signing key of the same key pair', async () => {
    const privateKey = await unwrapPrivateKey(kek, wrapped, aad, P256);
    expect(privateKey.extractable).toBe(false);
    const data = new Uint8Array([1, 2, 3]);
    const signature = await subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, privateKey, data);
    expect(await subtle.verify({ name: 'ECDSA', hash: 'SHA-256' }, pair.publicKey, signature, data)).toBe(
      true,
    );
  });

  it('does not unwrap under other associated data', async () => {
    await expect(
      unwrapPrivateKey(kek, wrapped, new TextEncoder().encode('tenant-2/key-1'), P256),
    ).rejects.toThrow();
  });

  it.each([
    ['an unknown version', (blob: Uint8Array) => Uint8Array.of(2, ...blob.subarray(1)), 'version 2'],
    ['an empty blob', () => new Uint8Array(), 'an empty blob'],
  ])('refuses %s as unsupported', async (_case, alter, message) => {
    const attempt = unwrapPrivateKey(kek, alter(wrapped), aad, P256);
    await expect(attempt).rejects.toThrow(KeyCustodyError);
    await expect(unwrapPrivateKey(kek, alter(wrapped), aad, P256)).rejects.toThrow(message);
  });

  it('refuses a truncated blob', async () => {
    await expect(unwrapPrivateKey(kek, wrapped.subarray(0, 29), aad, P256)).rejects.toThrow('truncated');
  });
});
