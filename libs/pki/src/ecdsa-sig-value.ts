import type { webcrypto } from 'node:crypto';

import { derSequence, derUnsignedIntegerFromOctets } from './der-writer';
import { pkiCrypto } from './crypto-engine';

const ECDSA_SHA256: webcrypto.EcdsaParams = { name: 'ECDSA', hash: 'SHA-256' };
const P256_COORDINATE_OCTETS = 32;

/**
 * Converts a WebCrypto ECDSA signature (IEEE P1363: r then s, each as wide as the curve order) into
 * the DER Ecdsa-Sig-Value ::= SEQUENCE { r INTEGER, s INTEGER } of RFC 3279 2.2.3, which is what
 * the signatureValue BIT STRING of X.509 and OCSP structures holds (RFC 5480 / RFC 5758 3.2).
 */
export function ecdsaSignatureToDer(p1363: Uint8Array): Uint8Array {
  if (p1363.length === 0 || p1363.length % 2 !== 0) {
    throw new RangeError(`An IEEE P1363 signature has an even, non-zero length, not ${p1363.length}`);
  }
  const half = p1363.length / 2;
  return derSequence(
    derUnsignedIntegerFromOctets(p1363.subarray(0, half)),
    derUnsignedIntegerFromOctets(p1363.subarray(half)),
  );
}

/**
 * Signs a to-be-signed structure (a TBSCertList, a ResponseData) with an ECDSA P-256 key and
 * SHA-256, through WebCrypto; returns the DER Ecdsa-Sig-Value for `assembleCertificateList` or a
 * BasicOCSPResponse. The key may be non-extractable.
 */
export async function signTbs(tbs: Uint8Array, privateKey: webcrypto.CryptoKey): Promise<Uint8Array> {
  if (privateKey.type !== 'private')
    throw new TypeError(`Expected a private key, got a ${privateKey.type} key`);
  const algorithm = privateKey.algorithm as webcrypto.EcKeyAlgorithm;
  if (algorithm.name !== 'ECDSA' || algorithm.namedCurve !== 'P-256') {
    throw new TypeError(
      `Expected an ECDSA P-256 key, got ${algorithm.name} ${algorithm.namedCurve ?? ''}`.trim(),
    );
  }
  const subtle = pkiCrypto(privateKey).subtle; // the key's own provider (a PKCS#11 token's, say)
  const signature = new Uint8Array(await subtle.sign(ECDSA_SHA256, privateKey, tbs));
  if (signature.length !== 2 * P256_COORDINATE_OCTETS) {
    throw new RangeError(`Unexpected P-256 signature length ${signature.length}`);
  }
  return ecdsaSignatureToDer(signature);
}
