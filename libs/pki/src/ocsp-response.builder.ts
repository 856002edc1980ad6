import { createHash, createPublicKey, type KeyObject, verify, type webcrypto } from 'node:crypto';

import { signatureAlgorithmOf } from './signature-algorithm';
import { parseCertificate } from './certificate.parser';
import { assertCrlReasonCode } from './crl-reason';
import { readSingleElement } from './der-reader';
import { encodeGeneralizedTimeDer } from './der-time';
import {
  contextConstructed,
  contextPrimitive,
  derElement,
  derEnumerated,
  type DerNode,
  derNode,
  derObjectIdentifier,
  derOctetString,
  type DerPart,
  derSequence,
  encodeDerTree,
  TAG,
} from './der-writer';
import { signTbs } from './ecdsa-sig-value';
import { assertOcspResponderCertificateLints, assertOcspResponseDataLints } from './lint/ocsp.linter';
import type { OcspCertId } from './ocsp-cert-id';
import { OCSP_ID } from './ocsp-object-identifier';
import { readTbsCertificateFields } from './tbs-certificate.reader';

/** OCSPResponseStatus (RFC 6960 4.2.1); 4 is not used. */
export const OCSP_RESPONSE_STATUS = {
  successful: 0,
  malformedRequest: 1,
  internalError: 2,
  tryLater: 3,
  sigRequired: 5,
  unauthorized: 6,
} as const;
export type OcspResponseStatus = keyof typeof OCSP_RESPONSE_STATUS;

/** CertStatus (RFC 6960 4.2.1). `reasonCode`: CRLReason (RFC 5280 5.3.1), written whenever given. */
export type OcspCertStatus =
  { kind: 'good' } | { kind: 'revoked'; revocationTime: Date; reasonCode?: number } | { kind: 'unknown' };

/** One SingleResponse: the status of one requested CertID. */
export interface OcspSingleResponseInput {
  /** As the request carried it: its `der` is echoed unchanged. */
  certId: OcspCertId;
  status: OcspCertStatus;
  thisUpdate: Date;
  /**
   * Later than thisUpdate. Absent only where newer information is always available (RFC 6960
   * 2.4), which makes the answer one no cache may keep (a serial not known yet, answered `unknown`).
   */
  nextUpdate?: Date;
}

export interface OcspResponseInput {
  /**
   * One per requested CertID, in request order. An element may be a SingleResponse already encoded
   * by `encodeSingleResponse` (kept, for instance, until the certificate's status or the update
   * window changes).
   */
  responses: readonly (OcspSingleResponseInput | Uint8Array)[];
  producedAt: Date;
  /** The request's nonce extnValue (`parseOcspRequest().nonce`), echoed unchanged when present. */
  nonce?: Uint8Array;
  /** The delegated OCSP signer (EKU OCSPSigning, RFC 6960 4.2.2.2), or the CA itself. */
  responderCertificateDer: Uint8Array;
  /** ECDSA P-256, matching the responder certificate; may be non-extractable. */
  responderPrivateKey: webcrypto.CryptoKey;
}

const GOOD = Uint8Array.of(contextPrimitive(0), 0); // good [0] IMPLICIT NULL
const UNKNOWN = Uint8Array.of(contextPrimitive(2), 0); // unknown [2] IMPLICIT UnknownInfo (NULL)
const SUCCESSFUL = derEnumerated(OCSP_RESPONSE_STATUS.successful);
const BASIC_RESPONSE_TYPE = derObjectIdentifier(OCSP_ID.basic);
const NONCE_ID = derObjectIdentifier(OCSP_ID.nonce);
const NO_UNUSED_BITS = Uint8Array.of(0);
// RFC 9654 2.1: a nonce of at most 128 octets in an OCTET STRING (tag, 0x81 and a length octet).
const MAX_NONCE_EXTN_VALUE_OCTETS = 131;

/**
 * SingleResponse ::= SEQUENCE { certID, certStatus, thisUpdate GeneralizedTime,
 * nextUpdate [0] EXPLICIT GeneralizedTime OPTIONAL, singleExtensions [1] EXPLICIT ... OPTIONAL }
 * (RFC 6960 4.2.1): the CertID octets as received, good / revoked (revocationTime and, when given,
 * revocationReason [0] EXPLICIT CRLReason) / unknown, thisUpdate and nextUpdate; no extensions.
 */
export function encodeSingleResponse(input: OcspSingleResponseInput): Uint8Array {
  return encodeDerTree(singleResponseNode(input));
}

/**
 * A successful OCSPResponse (RFC 6960 4.2.1) carrying a BasicOCSPResponse, DER-encoded:
 *
 * - ResponseData: version v1 (the DEFAULT, so absent), responderID byKey (SHA-1 of the responder's
 *   subjectPublicKey BIT STRING value, 4.2.2.3), producedAt, the SingleResponses in the order
 *   given, and the nonce echoed in responseExtensions when the request had one (RFC 9654 2.1);
 * - signatureAlgorithm that of the responder key (ecdsa-with-SHA256 or -SHA384, sha256WithRSAEncryption:
 *   `signature-algorithm.ts`) and the signature by that key;
 * - certs: the responder certificate, which a client needs to check a delegated signer (4.2.2.2).
 *
 * Everything but the signature is written as DER directly, so signing dominates the cost. Throws
 * RangeError for invalid input or a responder certificate that may not sign OCSP responses, and on
 * first use of a key with a certificate, if the key does not belong to it.
 */
export async function buildOcspResponse(input: OcspResponseInput): Promise<Uint8Array> {
  if (input.responses.length === 0)
    throw new RangeError('An OCSP response needs at least one SingleResponse');
  const responder = responderCertificate(input.responderCertificateDer);
  const singles = input.responses.map((response) =>
    ArrayBuffer.isView(response) ? checkedSingleResponse(response) : singleResponseNode(response),
  );
  const responseData = encodeDerTree(
    derNode(
      TAG.sequence,
      responder.responderId,
      encodeGeneralizedTimeDer(input.producedAt),
      derNode(TAG.sequence, ...singles),
      ...(input.nonce === undefined ? [] : [nonceExtensions(input.nonce)]),
    ),
  );
  assertOcspResponseDataLints(responseData); // docs/lints.md
  const algorithm = signatureAlgorithmOf(input.responderPrivateKey);
  const signature = await signTbs(responseData, input.responderPrivateKey);
  assertKeyMatches(responder, input.responderPrivateKey, responseData, signature);
  const basic = derNode(
    TAG.sequence,
    responseData,
    algorithm.der,
    derNode(TAG.bitString, NO_UNUSED_BITS, signature),
    responder.certs,
  );
  return encodeDerTree(
    derNode(
      TAG.sequence,
      SUCCESSFUL,
      derNode(
        contextConstructed(0),
        derNode(TAG.sequence, BASIC_RESPONSE_TYPE, derNode(TAG.octetString, basic)),
      ),
    ),
  );
}

/**
 * An unsuccessful OCSPResponse: the status alone, without responseBytes (RFC 6960 4.2.1), unsigned
 * as the RFC has it (2.3).
 */
export function buildOcspErrorResponse(status: Exclude<OcspResponseStatus, 'successful'>): Uint8Array {
  // Checked at run time too: a caller may pass any string.
  const code: number | undefined = Object.hasOwn(OCSP_RESPONSE_STATUS, status)
    ? OCSP_RESPONSE_STATUS[status]
    : undefined;
  if (code === undefined || code === OCSP_RESPONSE_STATUS.successful) {
    throw new RangeError(`Not an OCSP error status: "${status}"`);
  }
  return derSequence(derEnumerated(code));
}

function encodeCertStatus(status: OcspCertStatus): DerPart {
  switch (status.kind) {
    case 'good':
      return GOOD;
    case 'unknown':
      return UNKNOWN;
    case 'revoked': {
      // revoked [1] IMPLICIT RevokedInfo ::= SEQUENCE { revocationTime GeneralizedTime,
      //   revocationReason [0] EXPLICIT CRLReason OPTIONAL }
      const time = encodeGeneralizedTimeDer(status.revocationTime);
      if (status.reasonCode === undefined) return derNode(contextConstructed(1), time);
      assertCrlReasonCode(status.reasonCode);
      return derNode(
        contextConstructed(1),
        time,
        derNode(contextConstructed(0), derEnumerated(status.reasonCode)),
      );
    }
    default:
      throw new RangeError(`Unknown certificate status ${(status as { kind: unknown }).kind}`);
  }
}

function singleResponseNode(input: OcspSingleResponseInput): DerNode {
  readSingleElement(input.certId.der, 'CertID', TAG.sequence);
  const { nextUpdate } = input;
  if (
    nextUpdate &&
    Math.floor(nextUpdate.getTime() / 1000) <= Math.floor(input.thisUpdate.getTime() / 1000)
  ) {
    throw new RangeError('nextUpdate must be later than thisUpdate');
  }
  return derNode(
    TAG.sequence,
    input.certId.der,
    encodeCertStatus(input.status),
    encodeGeneralizedTimeDer(input.thisUpdate),
    ...(nextUpdate ? [derNode(contextConstructed(0), encodeGeneralizedTimeDer(nextUpdate))] : []),
  );
}

function checkedSingleResponse(der: Uint8Array): Uint8Array {
  readSingleElement(der, 'SingleResponse', TAG.sequence);
  return der;
}

/** responseExtensions [1] EXPLICIT Extensions holding the nonce, not critical (RFC 6960 4.4.1). */
function nonceExtensions(nonce: Uint8Array): DerNode {
  if (nonce.length === 0 || nonce.length > MAX_NONCE_EXTN_VALUE_OCTETS) {
    throw new RangeError(
      `A nonce extnValue has 1 to ${MAX_NONCE_EXTN_VALUE_OCTETS} octets, not ${nonce.length}`,
    );
  }
  return derNode(
    contextConstructed(1),
    derNode(TAG.sequence, derNode(TAG.sequence, NONCE_ID, derNode(TAG.octetString, nonce))),
  );
}

/** What signing under one responder certificate needs, computed once per certificate. */
interface ResponderCertificate {
  /** Cache key: the certificate's DER in base64. */
  key: string;
  /** responderID byKey: [2] EXPLICIT KeyHash (OCTET STRING of the SHA-1), RFC 6960 4.2.1. */
  responderId: Uint8Array;
  /** certs [0] EXPLICIT SEQUENCE OF Certificate, holding the responder certificate. */
  certs: Uint8Array;
  publicKey: KeyObject;
}

const CACHE_SIZE = 64;
const responders = new Map<string, ResponderCertificate>();
// Responder keys already seen to belong to a certificate, by cache key.
const matchingKeys = new WeakMap<webcrypto.CryptoKey, Set<string>>();

function responderCertificate(der: Uint8Array): ResponderCertificate {
  const key = Buffer.from(der.buffer, der.byteOffset, der.byteLength).toString('base64');
  const cached = responders.get(key);
  if (cached) {
    responders.delete(key); // re-inserted below as the most recently used
    responders.set(key, cached);
    return cached;
  }
  assertOcspResponderCertificateLints(der); // once per certificate: the result is cached below
  const info = parseCertificate(der);
  if (!info.isCa && !info.extendedKeyUsages.includes('ocspSigning')) {
    throw new RangeError('The responder certificate is neither a CA nor an OCSP signer (EKU OCSPSigning)');
  }
  const { subjectPublicKey, subjectPublicKeyInfoDer } = readTbsCertificateFields(der);
  const keyHash = createHash('sha1').update(subjectPublicKey).digest();
  const responder: ResponderCertificate = {
    key,
    responderId: derElement(contextConstructed(2), derOctetString(keyHash)),
    certs: derElement(contextConstructed(0), derSequence(der)),
    publicKey: createPublicKey({ key: Buffer.from(subjectPublicKeyInfoDer), format: 'der', type: 'spki' }),
  };
  responders.set(key, responder);
  if (responders.size > CACHE_SIZE) {
    const [leastRecentlyUsed] = responders.keys();
    responders.delete(leastRecentlyUsed);
  }
  return responder;
}

/** A key that does not belong to the certificate would yield responses that no client accepts. */
function assertKeyMatches(
  responder: ResponderCertificate,
  privateKey: webcrypto.CryptoKey,
  signed: Uint8Array,
  signatureDer: Uint8Array,
): void {
  if (matchingKeys.get(privateKey)?.has(responder.key)) return;
  if (!verify(signatureAlgorithmOf(privateKey).nodeHash, signed, responder.publicKey, signatureDer)) {
    throw new RangeError('The responder private key does not match the responder certificate');
  }
  const keys = matchingKeys.get(privateKey) ?? new Set<string>();
  matchingKeys.set(privateKey, keys.add(responder.key));
}
