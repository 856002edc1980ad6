import { createHash } from 'node:crypto';

import { ALGORITHM_ID } from './algorithm-identifier';
import { assertMinimalInteger, decodeObjectIdentifier, type DerElement, type DerReader } from './der-reader';
import { derElement, derObjectIdentifier, derOctetString, derSequence, TAG } from './der-writer';
import { PkiFormatError } from './pki-format.error';
import { serialFromHex, serialToHex } from './serial-number';
import { readTbsCertificateFields } from './tbs-certificate.reader';

/** The hash algorithms a CertID may use that this responder can match (RFC 6960 4.1.1, RFC 5019 2.1.1). */
export type OcspHashAlgorithm = 'sha1' | 'sha256';

/** Digest lengths, which issuerNameHash and issuerKeyHash must have. */
export const OCSP_HASH_LENGTH: Record<OcspHashAlgorithm, number> = { sha1: 20, sha256: 32 };

const HASH_BY_OID = new Map<string, OcspHashAlgorithm>([
  [ALGORITHM_ID.sha1, 'sha1'],
  [ALGORITHM_ID.sha256, 'sha256'],
]);

/**
 * CertID (RFC 6960 4.1.1): which certificate a request asks about, by a hash of its issuer's name
 * and key and its serial number.
 */
export interface OcspCertId {
  /** `sha1` or `sha256`; any other algorithm as its dotted OID (no issuer will match it). */
  hashAlgorithm: OcspHashAlgorithm | string;
  issuerNameHash: Uint8Array;
  issuerKeyHash: Uint8Array;
  /** As `serialToHex` prints it. */
  serialNumberHex: string;
  /** The CertID exactly as received, echoed in the SingleResponse (RFC 6960 4.2.1). */
  der: Uint8Array;
}

export function isOcspHashAlgorithm(name: string): name is OcspHashAlgorithm {
  return name === 'sha1' || name === 'sha256';
}

/** `sha1`/`sha256` for their OIDs, else the dotted OID itself. */
export function ocspHashAlgorithmName(oid: string): OcspHashAlgorithm | string {
  return HASH_BY_OID.get(oid) ?? oid;
}

/**
 * RFC 6960 4.1.1: issuerNameHash is the hash of the issuer's distinguished name (the DER Name of the
 * issuer certificate's subject field), issuerKeyHash the hash of the issuer's public key (the
 * subjectPublicKey BIT STRING value, without tag, length and unused-bits octet).
 */
export function issuerHashes(
  issuerCertificateDer: Uint8Array,
  algorithm: OcspHashAlgorithm,
): { issuerNameHash: Uint8Array; issuerKeyHash: Uint8Array } {
  if (!isOcspHashAlgorithm(algorithm))
    throw new RangeError(`Unsupported CertID hash algorithm "${algorithm}"`);
  const { subjectDer, subjectPublicKey } = readTbsCertificateFields(issuerCertificateDer);
  return {
    issuerNameHash: new Uint8Array(createHash(algorithm).update(subjectDer).digest()),
    issuerKeyHash: new Uint8Array(createHash(algorithm).update(subjectPublicKey).digest()),
  };
}

/**
 * A CertID built by the responder itself, for a response produced ahead of any request (RFC 5019
 * 2.1.1: clients use SHA-1 CertIDs) or for tests. The AlgorithmIdentifier carries NULL
 * parameters, as OpenSSL and Go write it.
 */
export function buildCertId(input: {
  issuerCertificateDer: Uint8Array;
  serialNumberHex: string;
  hashAlgorithm: OcspHashAlgorithm;
}): OcspCertId {
  const { issuerNameHash, issuerKeyHash } = issuerHashes(input.issuerCertificateDer, input.hashAlgorithm);
  const serial = serialFromHex(input.serialNumberHex);
  const oid = input.hashAlgorithm === 'sha1' ? ALGORITHM_ID.sha1 : ALGORITHM_ID.sha256;
  const der = derSequence(
    derSequence(derObjectIdentifier(oid), Uint8Array.of(TAG.null, 0)),
    derOctetString(issuerNameHash),
    derOctetString(issuerKeyHash),
    derElement(TAG.integer, serial),
  );
  return {
    hashAlgorithm: input.hashAlgorithm,
    issuerNameHash,
    issuerKeyHash,
    serialNumberHex: serialToHex(serial),
    der,
  };
}

/** Reads the CertID `element` found by `parent` (RFC 6960 4.1.1); throws `PkiFormatError`. */
export function readCertId(parent: DerReader, element: DerElement): OcspCertId {
  const certId = parent.inside(element);
  const algorithm = certId.inside(certId.read('CertID hashAlgorithm', TAG.sequence));
  const oid = decodeObjectIdentifier(
    algorithm.contents(algorithm.read('CertID hashAlgorithm algorithm', TAG.objectIdentifier)),
  );
  // Parameters absent or NULL: RFC 5754 2 has implementations accept both for SHA-1 and SHA-2.
  const parameters = algorithm.readOptional('CertID hashAlgorithm parameters', TAG.null);
  if (parameters && parameters.end !== parameters.contentStart) {
    throw new PkiFormatError('CertID hashAlgorithm: NULL parameters with contents');
  }
  algorithm.expectEnd('CertID hashAlgorithm');
  const hashAlgorithm = ocspHashAlgorithmName(oid);
  const issuerNameHash = certId.copyContents(certId.read('CertID issuerNameHash', TAG.octetString));
  const issuerKeyHash = certId.copyContents(certId.read('CertID issuerKeyHash', TAG.octetString));
  if (isOcspHashAlgorithm(hashAlgorithm)) {
    const expectedLength = OCSP_HASH_LENGTH[hashAlgorithm];
    if (issuerNameHash.length !== expectedLength || issuerKeyHash.length !== expectedLength) {
      throw new PkiFormatError(`CertID: ${hashAlgorithm} hashes must have ${expectedLength} octets`);
    }
  }
  const serial = certId.contents(certId.read('CertID serialNumber', TAG.integer));
  assertMinimalInteger(serial, 'CertID serialNumber');
  certId.expectEnd('CertID');
  return {
    hashAlgorithm,
    issuerNameHash,
    issuerKeyHash,
    serialNumberHex: serialToHex(serial),
    der: parent.copyEncoding(element),
  };
}
