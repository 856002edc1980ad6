import type { webcrypto } from 'node:crypto';

import { derSequence, derUnsignedIntegerFromOctets } from './der-writer';
import { pkiCrypto } from './crypto-engine';
import { signatureAlgorithmOf } from './signature-algorithm';

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
 * Signs a to-be-signed structure (a TBSCertificate, a TBSCertList, a ResponseData) with `privateKey`
 * through WebCrypto, with the algorithm that key signs with (`signatureAlgorithmOf`); returns the
 * signatureValue contents: the DER Ecdsa-Sig-Value for ECDSA, the RSASSA-PKCS1-v1_5 octets for RSA
 * (RFC 3279 2.2.1). The key may be non-extractable.
 */
export async function signTbs(tbs: Uint8Array, privateKey: webcrypto.CryptoKey): Promise<Uint8Array> {
  if (privateKey.type !== 'private')
    throw new TypeError(`Expected a private key, got a ${privateKey.type} key`);
  const algorithm = signatureAlgorithmOf(privateKey);
  const subtle = pkiCrypto(privateKey).subtle; // the key's own provider (a PKCS#11 token's, say)
  const signature = new Uint8Array(await subtle.sign(algorithm.webcrypto, privateKey, tbs));
  if (algorithm.coordinateOctets === 0) return signature;
  if (signature.length !== 2 * algorithm.coordinateOctets) {
    throw new RangeError(`Unexpected ${algorithm.name} signature length ${signature.length}`);
  }
  return ecdsaSignatureToDer(signature);
}
