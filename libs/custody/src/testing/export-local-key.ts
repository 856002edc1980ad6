import { unwrapPrivateKey, wrappedKeyVersion } from '../local/aes-gcm-key-wrap';
import { associatedData } from '../local/associated-data';
import { custodyKeyParams } from '../key-algorithms';
import type { CustodiedKey, CustodyKeyContext } from '../key-custody.port';

/**
 * Test hook: the PKCS#8 DER of a locally wrapped key, given its KEK. For tests that must know the
 * CA private key to prove it appears nowhere (logs, audit, database); never used by the product.
 */
export async function exportLocalPrivateKeyForTest(
  kek: Uint8Array,
  ctx: CustodyKeyContext,
  key: CustodiedKey,
): Promise<Buffer> {
  const aesKek = await globalThis.crypto.subtle.importKey('raw', Uint8Array.from(kek), 'AES-GCM', false, [
    'unwrapKey',
  ]);
  const version = wrappedKeyVersion(key.wrapped);
  const aad = associatedData(ctx, { version, algorithm: key.algorithm, publicKeySpki: key.publicKeySpki });
  const { import: params } = custodyKeyParams(key.algorithm, key.keyId);
  const privateKey = await unwrapPrivateKey(aesKek, key.wrapped, aad, params, true);
  return Buffer.from(await globalThis.crypto.subtle.exportKey('pkcs8', privateKey));
}
