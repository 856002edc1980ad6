import type { webcrypto } from 'node:crypto';

import { PkiFormatError } from './pki-format.error';

/** ECDSA over P-256 (docs/api.md#keys-and-serial-numbers), signing with SHA-256. */
export const EC_P256_KEY_ALGORITHM: webcrypto.EcKeyGenParams = { name: 'ECDSA', namedCurve: 'P-256' };

/**
 * A fresh P-256 key pair. Ask for `extractable` only when the private key must leave the process
 * (an issued leaf key returned once to the caller); the public key is always exportable.
 */
export async function generateEcKeyPair(extractable: boolean): Promise<webcrypto.CryptoKeyPair> {
  return globalThis.crypto.subtle.generateKey(EC_P256_KEY_ALGORITHM, extractable, ['sign', 'verify']);
}

/**
 * A P-256 public key from its DER SubjectPublicKeyInfo (RFC 5480 section 2), to certify a key that
 * was generated elsewhere (the OCSP responder's). Extractable, as building a certificate exports it.
 * Throws `PkiFormatError` for anything but a P-256 key.
 */
export async function importEcPublicKey(spkiDer: Uint8Array): Promise<webcrypto.CryptoKey> {
  try {
    return await globalThis.crypto.subtle.importKey('spki', spkiDer, EC_P256_KEY_ALGORITHM, true, ['verify']);
  } catch (error) {
    throw new PkiFormatError(`Not a P-256 SubjectPublicKeyInfo: ${(error as Error).message}`);
  }
}

/** The DER SubjectPublicKeyInfo (RFC 5280 4.1.2.7) of a public key. */
export async function exportSpkiDer(publicKey: webcrypto.CryptoKey): Promise<Uint8Array> {
  return new Uint8Array(await globalThis.crypto.subtle.exportKey('spki', publicKey));
}
