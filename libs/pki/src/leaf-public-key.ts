import { type KeyObject, createPublicKey, type webcrypto } from 'node:crypto';

import { PkiFormatError } from './pki-format.error';

/**
 * The leaf key algorithms this CA certifies (docs/api.md#key-algorithms); RSA-2048 only where the
 * caller allows it (a deployment whose key algorithm it is).
 */
export type LeafKeyAlgorithm = 'P-256' | 'P-384' | 'RSA-2048' | 'RSA-3072' | 'RSA-4096';

const IMPORT: Record<LeafKeyAlgorithm, webcrypto.EcKeyImportParams | webcrypto.RsaHashedImportParams> = {
  'P-256': { name: 'ECDSA', namedCurve: 'P-256' },
  'P-384': { name: 'ECDSA', namedCurve: 'P-384' },
  'RSA-2048': { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' },
  'RSA-3072': { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' },
  'RSA-4096': { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' },
};

// SubjectPublicKeyInfo of an uncompressed P-256 point (RFC 5480 2, 2.1.1, 2.2) up to the point:
// SEQUENCE { { id-ecPublicKey, prime256v1 }, BIT STRING { 0 unused, 04 ... } }, as the gateway
// and OpenSSL write it.
const P256_SPKI_PREFIX = Buffer.from('3059301306072a8648ce3d020106082a8648ce3d030107034200', 'hex');
const P256_SPKI_LENGTH = P256_SPKI_PREFIX.length + 65;

/** Whether the octets are the one DER encoding of an uncompressed P-256 key (its point unchecked). */
function isUncompressedP256Spki(spkiDer: Uint8Array): boolean {
  return (
    spkiDer.length === P256_SPKI_LENGTH &&
    spkiDer[P256_SPKI_PREFIX.length] === 0x04 &&
    P256_SPKI_PREFIX.equals(spkiDer.subarray(0, P256_SPKI_PREFIX.length))
  );
}

// The SubjectPublicKeyInfo each imported leaf key came from, when it is exactly what exporting
// the key gives back (the uncompressed P-256 encoding): the builder takes it instead of exporting.
const importedSpki = new WeakMap<webcrypto.CryptoKey, Uint8Array>();

/** The DER SubjectPublicKeyInfo of a public key: as imported, else exported by WebCrypto. */
export async function spkiOfPublicKey(publicKey: webcrypto.CryptoKey): Promise<Uint8Array> {
  return (
    importedSpki.get(publicKey) ?? new Uint8Array(await globalThis.crypto.subtle.exportKey('spki', publicKey))
  );
}

/**
 * A `KeyObject` of a DER SubjectPublicKeyInfo, to verify with. An uncompressed P-256 key is made
 * from its coordinates (a JWK): the same check that the point is on the curve, at a third of the
 * cost of OpenSSL 3's SubjectPublicKeyInfo decoder. Throws as `createPublicKey` does.
 */
export function publicKeyObjectOfSpki(spkiDer: Uint8Array): KeyObject {
  if (!isUncompressedP256Spki(spkiDer)) {
    return createPublicKey({ key: Buffer.from(spkiDer), format: 'der', type: 'spki' });
  }
  const point = Buffer.from(spkiDer.subarray(P256_SPKI_PREFIX.length + 1));
  return createPublicKey({
    key: {
      kty: 'EC',
      crv: 'P-256',
      x: point.subarray(0, 32).toString('base64url'),
      y: point.subarray(32).toString('base64url'),
    },
    format: 'jwk',
  });
}

/**
 * The algorithm of a DER SubjectPublicKeyInfo (RFC 5280 4.1.2.7) by this CA's names: an EC key on
 * P-256 or P-384 (RFC 5480), or an RSA key of exactly 2048, 3072 or 4096 bits (RFC 3279 2.3.1)
 * with exponent 65537. Anything else (another curve or size, a small exponent) is undefined.
 * RSA-2048 is named, not allowed: `importLeafPublicKey` takes only what its caller allows.
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
    if (details.modulusLength === 2048) return 'RSA-2048';
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
  // The gateway's keys: the encoding names the algorithm, and the import below checks the point
  // (on the curve), so the key is parsed once instead of twice on every issuance.
  const uncompressedP256 = isUncompressedP256Spki(spkiDer);
  const algorithm = uncompressedP256 ? 'P-256' : leafKeyAlgorithmOfSpki(spkiDer);
  if (!algorithm || !allowed.includes(algorithm)) {
    throw new PkiFormatError(`The key is not one of ${allowed.join(', ')}`);
  }
  let publicKey: webcrypto.CryptoKey;
  try {
    // An uncompressed P-256 key is imported as its raw point: the same checks (the point must be on
    // the curve), a third of the cost of the SubjectPublicKeyInfo decoder (about 90 against 250 µs).
    publicKey = uncompressedP256
      ? await globalThis.crypto.subtle.importKey(
          'raw',
          spkiDer.subarray(P256_SPKI_PREFIX.length),
          IMPORT[algorithm],
          true,
          ['verify'],
        )
      : await globalThis.crypto.subtle.importKey('spki', spkiDer, IMPORT[algorithm], true, ['verify']);
  } catch (error) {
    throw new PkiFormatError(`Not a valid ${algorithm} key: ${(error as Error).message}`);
  }
  if (uncompressedP256) importedSpki.set(publicKey, Uint8Array.from(spkiDer));
  return { publicKey, algorithm };
}
