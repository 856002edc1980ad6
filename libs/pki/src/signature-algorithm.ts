import { X509Certificate, type webcrypto } from 'node:crypto';

import { derNull, derObjectIdentifier, derSequence } from './der-writer';
import { PkiFormatError } from './pki-format.error';

/**
 * The one place that decides how a CA key signs (docs/api.md#key-algorithms): the signature
 * algorithm follows the key, so a P-256 key signs with ecdsa-with-SHA256, a P-384 key with
 * ecdsa-with-SHA384 (RFC 5758 3.2, the hash matched to the curve as CA/Browser Forum BR 7.1.3.2
 * require) and an RSA key of any size with sha256WithRSAEncryption (RFC 4055 5). Certificates,
 * CRLs and OCSP responses all take their AlgorithmIdentifier from here.
 */
export interface SignatureAlgorithm {
  name: 'ecdsa-with-SHA256' | 'ecdsa-with-SHA384' | 'sha256WithRSAEncryption';
  oid: string;
  /** The AlgorithmIdentifier as written (ECDSA: parameters absent, RFC 5758 3.2; RSA: NULL, RFC 4055 5). */
  der: Uint8Array;
  /** The digest, as WebCrypto and pkijs name it. */
  hash: 'SHA-256' | 'SHA-384';
  /** The digest as node:crypto `verify` names it. */
  nodeHash: 'sha256' | 'sha384';
  /** WebCrypto `sign` parameters. */
  webcrypto: webcrypto.EcdsaParams | webcrypto.Algorithm;
  /** ECDSA: octets of r and of s in a WebCrypto (IEEE P1363) signature; RSA: 0. */
  coordinateOctets: number;
}

const ECDSA_P256_SHA256: SignatureAlgorithm = {
  name: 'ecdsa-with-SHA256',
  oid: '1.2.840.10045.4.3.2',
  der: derSequence(derObjectIdentifier('1.2.840.10045.4.3.2')),
  hash: 'SHA-256',
  nodeHash: 'sha256',
  webcrypto: { name: 'ECDSA', hash: 'SHA-256' },
  coordinateOctets: 32,
};

const ECDSA_P384_SHA384: SignatureAlgorithm = {
  name: 'ecdsa-with-SHA384',
  oid: '1.2.840.10045.4.3.3',
  der: derSequence(derObjectIdentifier('1.2.840.10045.4.3.3')),
  hash: 'SHA-384',
  nodeHash: 'sha384',
  webcrypto: { name: 'ECDSA', hash: 'SHA-384' },
  coordinateOctets: 48,
};

const RSA_SHA256: SignatureAlgorithm = {
  name: 'sha256WithRSAEncryption',
  oid: '1.2.840.113549.1.1.11',
  der: derSequence(derObjectIdentifier('1.2.840.113549.1.1.11'), derNull()),
  hash: 'SHA-256',
  nodeHash: 'sha256',
  webcrypto: { name: 'RSASSA-PKCS1-v1_5' },
  coordinateOctets: 0,
};

export const SIGNATURE_ALGORITHMS: readonly SignatureAlgorithm[] = [
  ECDSA_P256_SHA256,
  ECDSA_P384_SHA384,
  RSA_SHA256,
];

/** The algorithm `key` (public or private, of any WebCrypto provider) signs with; TypeError for others. */
export function signatureAlgorithmOf(key: webcrypto.CryptoKey): SignatureAlgorithm {
  const algorithm = key.algorithm as webcrypto.EcKeyAlgorithm;
  if (algorithm.name === 'ECDSA' && algorithm.namedCurve === 'P-256') return ECDSA_P256_SHA256;
  if (algorithm.name === 'ECDSA' && algorithm.namedCurve === 'P-384') return ECDSA_P384_SHA384;
  if (algorithm.name === 'RSASSA-PKCS1-v1_5') return RSA_SHA256;
  throw new TypeError(
    `No signature algorithm for a ${algorithm.name} ${algorithm.namedCurve ?? ''} key`.trim(),
  );
}

/** The algorithm whose AlgorithmIdentifier is exactly `der`; PkiFormatError for any other. */
export function signatureAlgorithmFromDer(der: Uint8Array): SignatureAlgorithm {
  const found = SIGNATURE_ALGORITHMS.find((candidate) => Buffer.from(candidate.der).equals(Buffer.from(der)));
  if (!found) throw new PkiFormatError('signature algorithm: not one this CA manager writes');
  return found;
}

/** The algorithm the key certified in `certificateDer` signs with (a CA known by its certificate). */
export function signatureAlgorithmOfCertificate(certificateDer: Uint8Array): SignatureAlgorithm {
  const key = new X509Certificate(Buffer.from(certificateDer)).publicKey;
  const curve = key.asymmetricKeyDetails?.namedCurve;
  if (key.asymmetricKeyType === 'rsa') return RSA_SHA256;
  if (key.asymmetricKeyType === 'ec' && curve === 'prime256v1') return ECDSA_P256_SHA256;
  if (key.asymmetricKeyType === 'ec' && curve === 'secp384r1') return ECDSA_P384_SHA384;
  throw new PkiFormatError(`No signature algorithm for a ${key.asymmetricKeyType} ${curve ?? ''} key`.trim());
}
