import { randomBytes, type webcrypto } from 'node:crypto';

import { KeyCustodyError } from '../key-custody.error';

/**
 * Format of a locally wrapped key, version 1:
 *
 *   0x01 | IV (12 octets) | AES-256-GCM ciphertext of the PKCS#8 PrivateKeyInfo | tag (16 octets)
 *
 * The version octet leaves room for KEK rotation or another cipher: a reader refuses versions it
 * does not know instead of misreading them. Random 96-bit IVs are safe for up to 2^32 wraps
 * under one KEK (NIST SP 800-38D 8.3); a CA key is wrapped once per tenant.
 *
 * WebCrypto `wrapKey`/`unwrapKey` do the PKCS#8 export and import inside Node's native code, so
 * the plaintext private key never becomes a JavaScript buffer, and the unwrapped key is created
 * non-extractable directly (the same operations as C_WrapKey/C_UnwrapKey in PKCS#11).
 */
export const WRAPPED_KEY_VERSION = 1;
const IV_OCTETS = 12;
const TAG_OCTETS = 16;

export async function wrapPrivateKey(
  kek: webcrypto.CryptoKey,
  privateKey: webcrypto.CryptoKey,
  associatedData: Uint8Array,
): Promise<Uint8Array> {
  const iv = new Uint8Array(randomBytes(IV_OCTETS));
  const ciphertext = await globalThis.crypto.subtle.wrapKey(
    'pkcs8',
    privateKey,
    kek,
    gcm(iv, associatedData),
  );
  return Uint8Array.of(WRAPPED_KEY_VERSION, ...iv, ...new Uint8Array(ciphertext));
}

/** The format version of a wrapped key; throws `KeyCustodyError` for one this code cannot read. */
export function wrappedKeyVersion(wrapped: Uint8Array): number {
  if (wrapped.length === 0 || wrapped[0] !== WRAPPED_KEY_VERSION) {
    const found = wrapped.length === 0 ? 'an empty blob' : `version ${wrapped[0]}`;
    throw new KeyCustodyError('unsupported-key', `Wrapped key format not supported: ${found}`);
  }
  return wrapped[0];
}

/** Opens a wrapped key of `algorithm` as a non-extractable signing key; throws if it does not open. */
export async function unwrapPrivateKey(
  kek: webcrypto.CryptoKey,
  wrapped: Uint8Array,
  associatedData: Uint8Array,
  algorithm: webcrypto.EcKeyImportParams | webcrypto.RsaHashedImportParams,
  /** Only for re-wrapping under a new KEK (rotation): the key then goes straight into `wrapKey`. */
  extractable = false,
): Promise<webcrypto.CryptoKey> {
  wrappedKeyVersion(wrapped);
  if (wrapped.length <= 1 + IV_OCTETS + TAG_OCTETS) {
    throw new KeyCustodyError('key-unavailable', 'Wrapped key is truncated');
  }
  const iv = wrapped.subarray(1, 1 + IV_OCTETS);
  const ciphertext = wrapped.subarray(1 + IV_OCTETS);
  return globalThis.crypto.subtle.unwrapKey(
    'pkcs8',
    ciphertext,
    kek,
    gcm(iv, associatedData),
    algorithm,
    extractable,
    ['sign'],
  );
}

function gcm(iv: Uint8Array, additionalData: Uint8Array): webcrypto.AesGcmParams {
  return { name: 'AES-GCM', iv, additionalData, tagLength: TAG_OCTETS * 8 };
}
