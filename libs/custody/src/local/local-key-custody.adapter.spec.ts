import { createDecipheriv, randomBytes } from 'node:crypto';

import { KeyCustodyError } from '../key-custody.error';
import type { CustodiedKey } from '../key-custody.port';
import { describeKeyCustodyContract } from '../testing';
import { associatedData } from './associated-data';
import { LocalKeyCustody } from './local-key-custody.adapter';

const kek = new Uint8Array(randomBytes(32));
describeKeyCustodyContract('local', () => new LocalKeyCustody(kek));

describe('LocalKeyCustody', () => {
  const ctx = { tenantId: '6f1c2c52-5a4b-4f3e-9d59-1f6a0e2b7c11', keyId: 'ca-key-1' };
  const custody = new LocalKeyCustody(kek);
  let key: CustodiedKey;

  beforeAll(async () => {
    key = (await custody.generateSigningKey(ctx)).key;
  });

  /** Decrypts a blob as documented, independently of the code under test. */
  function decryptIndependently(blob: Uint8Array): Buffer {
    const aad = associatedData(ctx, {
      version: 1,
      algorithm: 'ECDSA-P256',
      publicKeySpki: key.publicKeySpki,
    });
    const decipher = createDecipheriv('aes-256-gcm', kek, blob.subarray(1, 13));
    decipher.setAAD(aad);
    decipher.setAuthTag(blob.subarray(blob.length - 16));
    return Buffer.concat([decipher.update(blob.subarray(13, blob.length - 16)), decipher.final()]);
  }

  it('stores the PKCS#8 encrypted: the documented format decrypts to it, the blob does not contain it', () => {
    const pkcs8 = decryptIndependently(key.wrapped);
    expect(pkcs8.subarray(0, 2).toString('hex')).toBe('3081'); // PrivateKeyInfo SEQUENCE (RFC 5208)
    expect(pkcs8.includes(Buffer.from('2a8648ce3d030107', 'hex'))).toBe(true); // prime256v1
    expect(Buffer.from(key.wrapped).includes(pkcs8)).toBe(false);
    expect(Buffer.from(key.wrapped).includes(pkcs8.subarray(pkcs8.length - 40))).toBe(false);
  });

  it('opens a key only with the KEK it was wrapped under', async () => {
    const other = new LocalKeyCustody(new Uint8Array(randomBytes(32)));
    await expect(other.openSigningKey(ctx, key)).rejects.toThrow(KeyCustodyError);
    await expect(other.openSigningKey(ctx, key)).rejects.toThrow(/wrapped under another CA_KEK/);
  });

  it.each([
    ['IV', 5],
    ['ciphertext', 40],
    ['tag', -1],
  ])('detects a changed %s', async (_region, index) => {
    const wrapped = Uint8Array.from(key.wrapped);
    wrapped[(index + wrapped.length) % wrapped.length] ^= 0x01;
    await expect(custody.openSigningKey(ctx, { ...key, wrapped })).rejects.toMatchObject({
      name: 'KeyCustodyError',
      failure: 'key-unavailable',
    });
  });

  it('refuses a format version it does not know', async () => {
    const wrapped = Uint8Array.of(9, ...key.wrapped.subarray(1));
    await expect(custody.openSigningKey(ctx, { ...key, wrapped })).rejects.toMatchObject({
      failure: 'unsupported-key',
      message: 'Wrapped key format not supported: version 9',
    });
  });

  it('refuses a public key swapped in beside the blob', async () => {
    const { key: another } = await custody.generateSigningKey(ctx);
    await expect(
      custody.openSigningKey(ctx, { ...key, publicKeySpki: another.publicKeySpki }),
    ).rejects.toThrow(KeyCustodyError);
  });

  it('refuses a blob copied to another tenant with a clear message and no key material', async () => {
    const elsewhere = { ...ctx, tenantId: '0b8a7d3e-2f41-4c55-8e6a-9c3d2b1a0f99' };
    const error = await custody.openSigningKey(elsewhere, key).then(
      () => undefined,
      (rejection: unknown) => rejection as KeyCustodyError,
    );
    expect(error).toBeInstanceOf(KeyCustodyError);
    expect(error!.message).toBe(
      `Cannot open key ca-key-1 of tenant ${elsewhere.tenantId}: the wrapped key was altered, belongs to another tenant or key, or was wrapped under another CA_KEK`,
    );
    for (const secret of [kek, decryptIndependently(key.wrapped), key.wrapped]) {
      const octets = Buffer.from(secret);
      for (const encoding of ['hex', 'base64', 'base64url'] as const) {
        expect(error!.message).not.toContain(octets.toString(encoding).slice(0, 12));
      }
    }
    expect(error!.cause).toBeUndefined();
  });

  it('refuses a key whose stored keyId is not the one asked for', async () => {
    await expect(custody.openSigningKey(ctx, { ...key, keyId: 'ca-key-2' })).rejects.toThrow(
      'Cannot open key ca-key-1 of tenant 6f1c2c52-5a4b-4f3e-9d59-1f6a0e2b7c11: the stored key is ca-key-2',
    );
  });

  it('refuses an algorithm it does not hold', async () => {
    const rsa = { ...key, algorithm: 'RSA-1024' as unknown as CustodiedKey['algorithm'] };
    await expect(custody.openSigningKey(ctx, rsa)).rejects.toMatchObject({ failure: 'unsupported-key' });
  });

  it('refuses a KEK that is not 32 bytes', () => {
    expect(() => new LocalKeyCustody(new Uint8Array(16))).toThrow('The key-encryption key must be 32 bytes');
    expect(() => new LocalKeyCustody(new Uint8Array(33))).toThrow(KeyCustodyError);
  });

  it('does not depend on the caller keeping the KEK buffer unchanged', async () => {
    const buffer = Uint8Array.from(kek);
    const own = new LocalKeyCustody(buffer);
    buffer.fill(0);
    await expect(own.openSigningKey(ctx, key)).resolves.toBeDefined();
  });

  describe('KEK rotation', () => {
    const newKek = new Uint8Array(randomBytes(32));

    it('re-wraps a key under a new KEK: same key pair, opens under the new KEK only', async () => {
      const { key: original, publicKey } = await custody.generateSigningKey(ctx);
      const rewrapped = await custody.rewrapUnder(new LocalKeyCustody(newKek), ctx, original);
      expect(Buffer.from(rewrapped.publicKeySpki).equals(Buffer.from(original.publicKeySpki))).toBe(true);
      expect(Buffer.from(rewrapped.wrapped).equals(Buffer.from(original.wrapped))).toBe(false);
      await expect(custody.openSigningKey(ctx, rewrapped)).rejects.toThrow(KeyCustodyError);
      const opened = await new LocalKeyCustody(newKek).openSigningKey(ctx, rewrapped);
      const data = new TextEncoder().encode('same key');
      const signature = await opened.crypto.subtle.sign(
        { name: 'ECDSA', hash: 'SHA-256' },
        opened.privateKey,
        data,
      );
      expect(await crypto.subtle.verify({ name: 'ECDSA', hash: 'SHA-256' }, publicKey, signature, data)).toBe(
        true,
      );
    });

    it("refuses to re-wrap a key that is not the context's", async () => {
      const elsewhere = { ...ctx, tenantId: '0b8a7d3e-2f41-4c55-8e6a-9c3d2b1a0f99' };
      await expect(custody.rewrapUnder(new LocalKeyCustody(newKek), elsewhere, key)).rejects.toThrow(
        KeyCustodyError,
      );
    });

    it('opens under a fallback KEK until useKek leaves only the new one', async () => {
      const both = new LocalKeyCustody(newKek, [kek]);
      await expect(both.openSigningKey(ctx, key)).resolves.toBeDefined();
      const { key: wrappedUnderNew } = await both.generateSigningKey(ctx);
      await expect(new LocalKeyCustody(newKek).openSigningKey(ctx, wrappedUnderNew)).resolves.toBeDefined();
      both.useKek(newKek);
      await expect(both.openSigningKey(ctx, key)).rejects.toThrow(/wrapped under another CA_KEK/);
    });
  });
});
