import { createPublicKey, type webcrypto } from 'node:crypto';

import { PkiFormatError } from './pki-format.error';

/** The leaf key algorithms this CA certifies (docs/api.md#key-algorithms). */
export type LeafKeyAlgorithm = 'P-256' | 'P-384' | 'RSA-3072' | 'RSA-4096';

const IMPORT: Record<LeafKeyAlgorithm, webcrypto.EcKeyImportParams | webcrypto.RsaHashedImportParams> = {
  'P-256': { name: 'ECDSA', namedCurve: 'P-256' },
  'P-384': { name: 'ECDSA', namedCurve: 'P-384' },
  'RSA-3072': { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' },
  'RSA-4096': { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' },
};

/**
 * The algorithm of a DER SubjectPublicKeyInfo (RFC 5280 4.1.2.7) by this CA's names: an EC key on
 * P-256 or P-384 (RFC 5480), or an RSA key of exactly 3072 or 4096 bits (RFC 3279 2.3.1) with
 * exponent 65537. Anything else (another curve, RSA-2048, a small exponent) is undefined.
 * Throws `PkiFormatError` for octets that are not a SubjectPublicKeyInfo.
 */
export function leafKeyAlgorithmOfSpki(spkiDer: Uint8Array): LeafKeyAlgorithm | undefined {
  let details;
  try {
    const key = createPublicKey({ key: Buffer.from(spkiDer), format: 'der', type: 'spki' });
    details = { type: key.asymmetricKeyType, ...key.asymmetricKeyDetails };
  } catch (error) {
    throw new PkiFormatError(`Not a SubjectPublicKeyInfo: ${(error as Error).message}`);
  }
  if (details.type === 'ec' && details.namedCurve === 'prime256v1') return 'P-256';
  if (details.type === 'ec' && details.namedCurve === 'secp384r1') return 'P-384';
  if (details.type === 'rsa' && details.publicExponent === 65537n) {
    if (details.modulusLength === 3072) return 'RSA-3072';
    if (details.modulusLength === 4096) return 'RSA-4096';
  }
  return undefined;
}

/**
 * A leaf's public key from its SubjectPublicKeyInfo, for the certificate builder (extractable, as
 * building exports it). Throws `PkiFormatError` for a key outside `allowed` (say RSA-2048: too weak).
 */
export async function importLeafPublicKey(
  spkiDer: Uint8Array,
  allowed: readonly string[],
): Promise<{ publicKey: webcrypto.CryptoKey; algorithm: LeafKeyAlgorithm }> {
  const algorithm = leafKeyAlgorithmOfSpki(spkiDer);
  if (!algorithm || !allowed.includes(algorithm)) {
    throw new PkiFormatError(`The key is not one of ${allowed.join(', ')}`);
  }
  const publicKey = await globalThis.crypto.subtle.importKey('spki', spkiDer, IMPORT[algorithm], true, [
    'verify',
  ]);
  return { publicKey, algorithm };
}
