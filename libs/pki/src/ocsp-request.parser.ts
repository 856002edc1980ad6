import { decodeObjectIdentifier, type DerElement, DerReader, readSingleElement } from './der-reader';
import { contextConstructed, TAG } from './der-writer';
import { type OcspCertId, readCertId } from './ocsp-cert-id';
import { OCSP_ID } from './ocsp-object-identifier';
import { PkiFormatError } from './pki-format.error';

/** What an OCSP request asks (RFC 6960 4.1.1). */
export interface OcspRequestInfo {
  /** One per Request of the requestList, in order; never empty. */
  certIds: OcspCertId[];
  /**
   * The extnValue contents of id-pkix-ocsp-nonce, to echo unchanged in the response: the DER of
   * an OCTET STRING of 1 to 128 octets (RFC 9654 2.1), as OpenSSL sends it. Absent when the request
   * has no nonce.
   */
  nonce?: Uint8Array;
}

// RFC 9654 2.1 (which obsoletes RFC 8954): Nonce ::= OCTET STRING (SIZE(1..128)); the bounds are those
// of this inner OCTET STRING, not of the extnValue around it. A zero-length nonce is malformed.
const MIN_NONCE_OCTETS = 1;
const MAX_NONCE_OCTETS = 128;
// Request extensions this responder understands (RFC 6960 4.4): a critical one of another kind is
// refused, as 4.4 says, rather than silently ignored.
const UNDERSTOOD_EXTENSIONS = new Set<string>([
  OCSP_ID.nonce,
  OCSP_ID.acceptableResponses,
  OCSP_ID.serviceLocator,
  OCSP_ID.preferredSignatureAlgorithms,
]);

/**
 * Reads a DER OCSPRequest (RFC 6960 4.1.1):
 *
 *     OCSPRequest ::= SEQUENCE { tbsRequest TBSRequest,
 *                                optionalSignature [0] EXPLICIT Signature OPTIONAL }
 *     TBSRequest  ::= SEQUENCE { version [0] EXPLICIT Version DEFAULT v1,
 *                                requestorName [1] EXPLICIT GeneralName OPTIONAL,
 *                                requestList SEQUENCE OF Request,
 *                                requestExtensions [2] EXPLICIT Extensions OPTIONAL }
 *     Request     ::= SEQUENCE { reqCert CertID,
 *                                singleRequestExtensions [0] EXPLICIT Extensions OPTIONAL }
 *     CertID      ::= SEQUENCE { hashAlgorithm AlgorithmIdentifier, issuerNameHash OCTET STRING,
 *                                issuerKeyHash OCTET STRING, serialNumber CertificateSerialNumber }
 *
 * Strict DER lengths, nothing after the request, at least one Request, version v1. A signature
 * and a requestor name are skipped (this responder does not require signed requests). Throws
 * `PkiFormatError` for anything else: the responder answers `malformedRequest`.
 */
export function parseOcspRequest(der: Uint8Array): OcspRequestInfo {
  const request = readSingleElement(der, 'OCSPRequest', TAG.sequence);
  const outer = new DerReader(der, request.contentStart, request.end);
  const tbs = outer.inside(outer.read('TBSRequest', TAG.sequence));
  outer.readOptional('optionalSignature', contextConstructed(0));
  outer.expectEnd('OCSPRequest');

  const version = tbs.readOptional('TBSRequest version', contextConstructed(0));
  if (version) {
    const inner = tbs.inside(version);
    const value = inner.contents(inner.read('TBSRequest version', TAG.integer));
    inner.expectEnd('TBSRequest version');
    if (value.length !== 1 || value[0] !== 0) throw new PkiFormatError('TBSRequest: version is not v1');
  }
  tbs.readOptional('requestorName', contextConstructed(1));
  const requestList = tbs.inside(tbs.read('requestList', TAG.sequence));
  const certIds: OcspCertId[] = [];
  while (!requestList.atEnd) {
    const item = requestList.inside(requestList.read('Request', TAG.sequence));
    certIds.push(readCertId(item, item.read('reqCert', TAG.sequence)));
    const singleExtensions = item.readOptional('singleRequestExtensions', contextConstructed(0));
    if (singleExtensions) readExtensions(item, singleExtensions, 'singleRequestExtensions');
    item.expectEnd('Request');
  }
  if (certIds.length === 0) throw new PkiFormatError('requestList: no Request');

  let nonce: Uint8Array | undefined;
  const requestExtensions = tbs.readOptional('requestExtensions', contextConstructed(2));
  if (requestExtensions) {
    for (const { oid, value } of readExtensions(tbs, requestExtensions, 'requestExtensions')) {
      if (oid !== OCSP_ID.nonce) continue;
      assertNonce(value);
      nonce = new Uint8Array(value);
    }
  }
  tbs.expectEnd('TBSRequest');
  return nonce ? { certIds, nonce } : { certIds };
}

/** The nonce extnValue is one DER OCTET STRING of 1 to 128 octets (RFC 9654 2.1), nothing else. */
function assertNonce(extnValue: Uint8Array): void {
  const element = readSingleElement(extnValue, 'nonce', TAG.octetString);
  const length = element.end - element.contentStart;
  if (length < MIN_NONCE_OCTETS || length > MAX_NONCE_OCTETS) {
    throw new PkiFormatError(
      `nonce: ${length} octets, not ${MIN_NONCE_OCTETS} to ${MAX_NONCE_OCTETS} (RFC 9654 2.1)`,
    );
  }
}

/**
 * Extensions ::= SEQUENCE SIZE (1..MAX) OF Extension (RFC 5280 4.1), inside an EXPLICIT tag. Each
 * extension at most once; a critical one this responder does not understand is refused (RFC 6960
 * 4.4).
 */
function readExtensions(
  parent: DerReader,
  wrapper: DerElement,
  what: string,
): { oid: string; value: Uint8Array }[] {
  const outer = parent.inside(wrapper);
  const list = outer.inside(outer.read(what, TAG.sequence));
  outer.expectEnd(what);
  const extensions: { oid: string; value: Uint8Array }[] = [];
  while (!list.atEnd) {
    const extension = list.inside(list.read(`${what} Extension`, TAG.sequence));
    const oid = decodeObjectIdentifier(extension.contents(extension.read('extnID', TAG.objectIdentifier)));
    const critical = extension.readOptional(`extension ${oid} critical`, TAG.boolean);
    const isCritical = critical !== undefined && criticalValue(extension.contents(critical), oid);
    const value = extension.contents(extension.read(`extension ${oid} extnValue`, TAG.octetString));
    extension.expectEnd(`extension ${oid}`);
    if (extensions.some((seen) => seen.oid === oid)) {
      throw new PkiFormatError(`${what}: extension ${oid} appears twice`);
    }
    if (isCritical && !UNDERSTOOD_EXTENSIONS.has(oid)) {
      throw new PkiFormatError(`${what}: critical extension ${oid} is not understood`);
    }
    extensions.push({ oid, value });
  }
  return extensions;
}

/** BOOLEAN content: one octet, 0x00 FALSE or 0xFF TRUE (X.690 11.1). */
function criticalValue(contents: Uint8Array, oid: string): boolean {
  if (contents.length !== 1 || (contents[0] !== 0 && contents[0] !== 0xff)) {
    throw new PkiFormatError(`extension ${oid}: critical is not a DER BOOLEAN`);
  }
  return contents[0] === 0xff;
}
