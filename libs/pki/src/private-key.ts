import type { webcrypto } from 'node:crypto';

import { generateEcKeyPair } from './ec-key-pair';
import { derToPem } from './pem';

/**
 * A fresh, extractable P-256 key pair for an issued certificate: its private key is handed to the
 * requester once (`exportPrivateKeyPem`) and never stored by the CA.
 */
export async function generateLeafKeyPair(): Promise<webcrypto.CryptoKeyPair> {
  return generateEcKeyPair(true);
}

/**
 * The unencrypted PKCS#8 PrivateKeyInfo (RFC 5208 section 5, RFC 5958 section 2) of an extractable
 * private key, in the RFC 7468 section 10 textual encoding `-----BEGIN PRIVATE KEY-----`.
 */
export async function exportPrivateKeyPem(privateKey: webcrypto.CryptoKey): Promise<string> {
  if (privateKey.type !== 'private')
    throw new TypeError(`Expected a private key, got a ${privateKey.type} key`);
  if (!privateKey.extractable) throw new TypeError('The private key is not extractable');
  const pkcs8 = new Uint8Array(await globalThis.crypto.subtle.exportKey('pkcs8', privateKey));
  return derToPem(pkcs8, 'PRIVATE KEY');
}
