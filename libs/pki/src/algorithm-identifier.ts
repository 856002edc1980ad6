import { derObjectIdentifier, derSequence } from './der-writer';

/** Object identifiers of the algorithms the CRL and OCSP encoders write or recognise. */
export const ALGORITHM_ID = {
  /** RFC 5758 3.2 (RFC 5480): ecdsa-with-SHA256. */
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  /** RFC 3279 2.1: id-sha1. */
  sha1: '1.3.14.3.2.26',
  /** RFC 5754 2.2: id-sha256. */
  sha256: '2.16.840.1.101.3.4.2.1',
} as const;

/**
 * AlgorithmIdentifier (RFC 5280 4.1.1.2) of ecdsa-with-SHA256: RFC 5758 3.2 says the parameters
 * field MUST be absent, so this is SEQUENCE { OID } and nothing else. The same octets appear in the
 * TBSCertList, the CertificateList and the BasicOCSPResponse; compared byte for byte on reading.
 */
export const ECDSA_WITH_SHA256_DER: Uint8Array = derSequence(
  derObjectIdentifier(ALGORITHM_ID.ecdsaWithSha256),
);
