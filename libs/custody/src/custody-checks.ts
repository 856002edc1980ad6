import type { webcrypto } from 'node:crypto';
import { type CustodyKeyParams, custodyKeyParams } from './key-algorithms';
import { KeyCustodyError } from './key-custody.error';
import type { CustodiedKey, CustodyKeyAlgorithm, CustodyKeyContext } from './key-custody.port';

/** How every custody names the key of `ctx` in its messages. */
export const keyName = (ctx: CustodyKeyContext): string => `key ${ctx.keyId} of tenant ${ctx.tenantId}`;

/** Refuses a context that would bind a key to no tenant or no key id. */
export function assertContext(ctx: CustodyKeyContext): void {
  if (!ctx.tenantId || !ctx.keyId) {
    throw new KeyCustodyError('invalid-argument', 'A custody context needs a tenantId and a keyId');
  }
}

/** What every backend checks before it makes a key: a complete `ctx` and an algorithm custody holds. */
export function newKeyParams(ctx: CustodyKeyContext, algorithm: CustodyKeyAlgorithm): CustodyKeyParams {
  assertContext(ctx);
  return custodyKeyParams(algorithm, keyName(ctx));
}

/**
 * What every backend checks before it touches a stored key: `ctx` is complete, the algorithm is
 * one custody holds, and the stored key was made for `ctx`'s key id. Returns the key's name for
 * messages and its WebCrypto parameters.
 */
export function checkStoredKey(
  ctx: CustodyKeyContext,
  key: CustodiedKey,
): { which: string; params: CustodyKeyParams } {
  assertContext(ctx);
  const which = keyName(ctx);
  const params = custodyKeyParams(key.algorithm, which);
  if (key.keyId !== ctx.keyId) {
    throw new KeyCustodyError('key-unavailable', `Cannot open ${which}: the stored key is ${key.keyId}`);
  }
  return { which, params };
}

/** The stored public half as a Node WebCrypto key, usable to verify only. */
export function importStoredPublicKey(
  key: CustodiedKey,
  params: CustodyKeyParams,
): Promise<webcrypto.CryptoKey> {
  return globalThis.crypto.subtle.importKey('spki', key.publicKeySpki, params.import, true, ['verify']);
}
