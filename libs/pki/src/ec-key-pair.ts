import type { webcrypto } from 'node:crypto';

/** ECDSA over P-256 (CONTRACT section 5 "Keys"), signing with SHA-256. */
export const EC_P256_KEY_ALGORITHM: webcrypto.EcKeyGenParams = { name: 'ECDSA', namedCurve: 'P-256' };

/**
 * A fresh P-256 key pair. Ask for `extractable` only when the private key must leave the process
 * (an issued leaf key returned once to the caller); the public key is always exportable.
 */
export async function generateEcKeyPair(extractable: boolean): Promise<webcrypto.CryptoKeyPair> {
  return globalThis.crypto.subtle.generateKey(EC_P256_KEY_ALGORITHM, extractable, ['sign', 'verify']);
}

/** The DER SubjectPublicKeyInfo (RFC 5280 4.1.2.7) of a public key. */
export async function exportSpkiDer(publicKey: webcrypto.CryptoKey): Promise<Uint8Array> {
  return new Uint8Array(await globalThis.crypto.subtle.exportKey('spki', publicKey));
}
