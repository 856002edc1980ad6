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

/** ECDSA with the hash of `bits` on the curve of the same size; the AlgorithmIdentifier has no parameters. */
function ecdsa(bits: 256 | 384, oid: string): SignatureAlgorithm {
  const hash = bits === 256 ? 'SHA-256' : 'SHA-384';
  return {
    name: `ecdsa-with-SHA${bits}`,
    oid,
    der: derSequence(derObjectIdentifier(oid)),
    hash,
    nodeHash: bits === 256 ? 'sha256' : 'sha384',
    webcrypto: { name: 'ECDSA', hash },
    coordinateOctets: bits / 8,
  };
}

const RSA_SHA256_OID = '1.2.840.113549.1.1.11';

/**
 * Every key this CA manager signs with and its algorithm, the key named as WebCrypto names it and
 * as node:crypto does (a CA known only by its certificate); a curve left out matches any key of the type.
 */
const BY_KEY: readonly {
  webcrypto: { name: string; namedCurve?: string };
  node: { type: string; namedCurve?: string };
  algorithm: SignatureAlgorithm;
}[] = [
  {
    webcrypto: { name: 'ECDSA', namedCurve: 'P-256' },
    node: { type: 'ec', namedCurve: 'prime256v1' },
    algorithm: ecdsa(256, '1.2.840.10045.4.3.2'),
  },
  {
    webcrypto: { name: 'ECDSA', namedCurve: 'P-384' },
    node: { type: 'ec', namedCurve: 'secp384r1' },
    algorithm: ecdsa(384, '1.2.840.10045.4.3.3'),
  },
  {
    webcrypto: { name: 'RSASSA-PKCS1-v1_5' },
    node: { type: 'rsa' },
    algorithm: {
      name: 'sha256WithRSAEncryption',
      oid: RSA_SHA256_OID,
      der: derSequence(derObjectIdentifier(RSA_SHA256_OID), derNull()),
      hash: 'SHA-256',
      nodeHash: 'sha256',
      webcrypto: { name: 'RSASSA-PKCS1-v1_5' },
      coordinateOctets: 0,
    },
  },
];

const matches = (want: { namedCurve?: string }, curve: string | undefined) =>
  want.namedCurve === undefined || want.namedCurve === curve;

export const SIGNATURE_ALGORITHMS: readonly SignatureAlgorithm[] = BY_KEY.map((entry) => entry.algorithm);

/** The algorithm `key` (public or private, of any WebCrypto provider) signs with; TypeError for others. */
export function signatureAlgorithmOf(key: webcrypto.CryptoKey): SignatureAlgorithm {
  const algorithm = key.algorithm as webcrypto.EcKeyAlgorithm;
  const found = BY_KEY.find(
    ({ webcrypto }) => webcrypto.name === algorithm.name && matches(webcrypto, algorithm.namedCurve),
  );
  if (found) return found.algorithm;
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
  const found = BY_KEY.find(({ node }) => node.type === key.asymmetricKeyType && matches(node, curve));
  if (found) return found.algorithm;
  throw new PkiFormatError(`No signature algorithm for a ${key.asymmetricKeyType} ${curve ?? ''} key`.trim());
}
