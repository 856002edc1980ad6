/**
 * Object identifiers of the digests the OCSP CertID encoder writes or recognises; signature
 * algorithms are in `signature-algorithm.ts`.
 */
export const ALGORITHM_ID = {
  /** RFC 3279 2.1: id-sha1. */
  sha1: '1.3.14.3.2.26',
  /** RFC 5754 2.2: id-sha256. */
  sha256: '2.16.840.1.101.3.4.2.1',
} as const;
