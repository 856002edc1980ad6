import { KeyCustodyError } from '../key-custody.error';
import type { CustodyKeyContext, KeyCustody } from '../key-custody.port';

const ECDSA_SHA256 = { name: 'ECDSA', hash: 'SHA-256' };
const subtle = globalThis.crypto.subtle;

/**
 * What every `KeyCustody` backend promises (local and PKCS#11): run it against each one.
 * Signing goes through the provider the opened key belongs to; verifying through Node's own.
 * `custody` is called once per test and may return the same instance.
 */
export function describeKeyCustodyContract(
  backend: string,
  custody: () => KeyCustody | Promise<KeyCustody>,
): void {
  describe(`KeyCustody contract: ${backend}`, () => {
    const ctx: CustodyKeyContext = { tenantId: '6f1c2c52-5a4b-4f3e-9d59-1f6a0e2b7c11', keyId: 'ca-key-1' };

    it('generates a P-256 key whose opened private key signs what the public key verifies', async () => {
      const keys = await custody();
      const { key, publicKey } = await keys.generateSigningKey(ctx);
      expect(key).toEqual({
        keyId: ctx.keyId,
        algorithm: 'ECDSA-P256',
        publicKeySpki: expect.any(Uint8Array),
        wrapped: expect.any(Uint8Array),
      });
      expect(new Uint8Array(await subtle.exportKey('spki', publicKey))).toEqual(key.publicKeySpki);

      const opened = await keys.openSigningKey(ctx, key);
      const data = new TextEncoder().encode('to be signed');
      const signature = await opened.crypto.subtle.sign(ECDSA_SHA256, opened.privateKey, data);
      expect(await subtle.verify(ECDSA_SHA256, publicKey, signature, data)).toBe(true);
      expect(await subtle.verify(ECDSA_SHA256, opened.publicKey, signature, data)).toBe(true);
      expect(new Uint8Array(await subtle.exportKey('spki', opened.publicKey))).toEqual(key.publicKeySpki);
    });

    it.each([
      ['ECDSA-P384', { name: 'ECDSA', hash: 'SHA-384' }],
      ['RSA-3072', { name: 'RSASSA-PKCS1-v1_5' }],
    ] as const)(
      'generates and opens a %s key that signs what its public key verifies',
      async (algorithm, params) => {
        const keys = await custody();
        const { key, publicKey } = await keys.generateSigningKey(ctx, algorithm);
        expect(key.algorithm).toBe(algorithm);
        const opened = await keys.openSigningKey(ctx, key);
        expect(opened.privateKey.extractable).toBe(false);
        const data = new TextEncoder().encode('to be signed');
        const signature = await opened.crypto.subtle.sign(params, opened.privateKey, data);
        expect(await subtle.verify(params, publicKey, signature, data)).toBe(true);
        // The stored algorithm is bound to the key: claiming another one does not open it.
        await expect(keys.openSigningKey(ctx, { ...key, algorithm: 'ECDSA-P256' })).rejects.toThrow(
          KeyCustodyError,
        );
      },
    );

    it('hands out the private key non-extractable, for signing only', async () => {
      const keys = await custody();
      const opened = await keys.openSigningKey(ctx, (await keys.generateSigningKey(ctx)).key);
      const { privateKey } = opened;
      expect(privateKey.extractable).toBe(false);
      expect(privateKey.usages).toEqual(['sign']);
      expect(privateKey.algorithm).toMatchObject({ name: 'ECDSA', namedCurve: 'P-256' });
      await expect(opened.crypto.subtle.exportKey('pkcs8', privateKey)).rejects.toThrow();
      await expect(opened.crypto.subtle.exportKey('jwk', privateKey)).rejects.toThrow();
    });

    it('opens a stored key again and again, and makes a new key every time', async () => {
      const keys = await custody();
      const first = await keys.generateSigningKey(ctx);
      const second = await keys.generateSigningKey(ctx);
      expect(second.key.publicKeySpki).not.toEqual(first.key.publicKeySpki);
      await expect(keys.openSigningKey(ctx, first.key)).resolves.toBeDefined();
      await expect(keys.openSigningKey(ctx, first.key)).resolves.toBeDefined();
    });

    it.each([
      ['another tenant', { tenantId: '0b8a7d3e-2f41-4c55-8e6a-9c3d2b1a0f99' }],
      ['another key id', { keyId: 'ca-key-2' }],
    ])('refuses to open the key for %s', async (_case, other) => {
      const keys = await custody();
      const { key } = await keys.generateSigningKey(ctx);
      const elsewhere = { ...ctx, ...other };
      await expect(keys.openSigningKey(elsewhere, { ...key, keyId: elsewhere.keyId })).rejects.toThrow(
        KeyCustodyError,
      );
    });

    it('refuses a public key swapped in beside the stored key', async () => {
      const keys = await custody();
      const first = await keys.generateSigningKey(ctx);
      const second = await keys.generateSigningKey(ctx);
      await expect(
        keys.openSigningKey(ctx, { ...first.key, publicKeySpki: second.key.publicKeySpki }),
      ).rejects.toThrow(KeyCustodyError);
    });

    it('destroys a key only for its owner', async () => {
      const keys = await custody();
      const { key } = await keys.generateSigningKey(ctx);
      const elsewhere = { ...ctx, tenantId: '0b8a7d3e-2f41-4c55-8e6a-9c3d2b1a0f99' };
      await expect(keys.destroySigningKey(elsewhere, key)).rejects.toThrow(KeyCustodyError);
      await expect(keys.destroySigningKey(ctx, key)).resolves.toBeUndefined();
    });

    it('refuses an empty tenantId or keyId', async () => {
      const keys = await custody();
      await expect(keys.generateSigningKey({ tenantId: '', keyId: 'k' })).rejects.toThrow(KeyCustodyError);
      await expect(keys.generateSigningKey({ tenantId: 't', keyId: '' })).rejects.toThrow(KeyCustodyError);
    });
  });
}
