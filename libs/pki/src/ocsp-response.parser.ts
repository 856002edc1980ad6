import { decodeObjectIdentifier, type DerElement, DerReader, readSingleElement } from './der-reader';
import { decodeTime } from './der-time';
import { contextConstructed, contextPrimitive, TAG } from './der-writer';
import { toHex } from './hex';
import { readCertId } from './ocsp-cert-id';
import { OCSP_ID } from './ocsp-object-identifier';
import { type OcspCertStatus, OCSP_RESPONSE_STATUS, type OcspResponseStatus } from './ocsp-response.builder';
import { PkiFormatError } from './pki-format.error';

/** One SingleResponse as read back (RFC 6960 4.2.1). */
export interface OcspSingleResponseInfo {
  /** `sha1`, `sha256` or the dotted OID of the CertID's hash algorithm. */
  hashAlgorithm: string;
  serialNumberHex: string;
  /** The CertID octets, to compare with the request's. */
  certIdDer: Uint8Array;
  status: OcspCertStatus;
  thisUpdate: Date;
  nextUpdate?: Date;
}

/** A successful response with its BasicOCSPResponse read. */
export interface OcspBasicResponseInfo {
  responseStatus: 'successful';
  producedAt: Date;
  /** responderID byKey, uppercase hex; absent when the responder is named byName. */
  responderKeyHashHex?: string;
  /** responderID byName, the DER Name; absent when the responder is named byKey. */
  responderNameDer?: Uint8Array;
  /** The nonce extnValue of responseExtensions, when present. */
  nonce?: Uint8Array;
  /** The DER certificates of the certs field (empty without it). */
  certificates: Uint8Array[];
  responses: OcspSingleResponseInfo[];
  /** Dotted OID of the signatureAlgorithm. */
  signatureAlgorithm: string;
  /** The signed ResponseData octets and the signature BIT STRING value, to check the signature. */
  tbsResponseData: Uint8Array;
  signatureValue: Uint8Array;
}

export type OcspResponseInfo =
  OcspBasicResponseInfo | { responseStatus: Exclude<OcspResponseStatus, 'successful'> };

const STATUS_BY_CODE = new Map<number, OcspResponseStatus>(
  Object.entries(OCSP_RESPONSE_STATUS).map(([name, code]): [number, OcspResponseStatus] => [
    code,
    name as OcspResponseStatus,
  ]),
);

/**
 * Reads a DER OCSPResponse (RFC 6960 4.2.1) and, for a successful one, its BasicOCSPResponse.
 * Strict DER; throws `PkiFormatError` for anything else or another response type. Does not verify
 * the signature: `tbsResponseData` and `signatureValue` are given for that.
 */
export function parseOcspResponse(der: Uint8Array): OcspResponseInfo {
  const response = readSingleElement(der, 'OCSPResponse', TAG.sequence);
  const outer = new DerReader(der, response.contentStart, response.end);
  const statusOctets = outer.contents(outer.read('responseStatus', TAG.enumerated));
  const responseStatus = statusOctets.length === 1 ? STATUS_BY_CODE.get(statusOctets[0]) : undefined;
  if (responseStatus === undefined) throw new PkiFormatError('responseStatus: not an OCSPResponseStatus');
  const responseBytes = outer.readOptional('responseBytes', contextConstructed(0));
  outer.expectEnd('OCSPResponse');
  if (responseStatus !== 'successful') {
    if (responseBytes) throw new PkiFormatError(`A ${responseStatus} response has responseBytes`);
    return { responseStatus };
  }
  if (!responseBytes) throw new PkiFormatError('A successful response has no responseBytes');
  const wrapper = outer.inside(responseBytes);
  const bytes = wrapper.inside(wrapper.read('ResponseBytes', TAG.sequence));
  wrapper.expectEnd('responseBytes');
  const responseType = decodeObjectIdentifier(
    bytes.contents(bytes.read('responseType', TAG.objectIdentifier)),
  );
  if (responseType !== OCSP_ID.basic) throw new PkiFormatError(`responseType ${responseType} is not basic`);
  const basic = bytes.contents(bytes.read('response', TAG.octetString));
  bytes.expectEnd('ResponseBytes');
  return parseBasicResponse(basic);
}

function parseBasicResponse(der: Uint8Array): OcspBasicResponseInfo {
  const basic = readSingleElement(der, 'BasicOCSPResponse', TAG.sequence);
  const reader = new DerReader(der, basic.contentStart, basic.end);
  const tbs = reader.read('tbsResponseData', TAG.sequence);
  const algorithm = reader.inside(reader.read('signatureAlgorithm', TAG.sequence));
  const signatureAlgorithm = decodeObjectIdentifier(
    algorithm.contents(algorithm.read('signatureAlgorithm algorithm', TAG.objectIdentifier)),
  );
  const signature = reader.contents(reader.read('signature', TAG.bitString));
  if (signature.length < 1 || signature[0] !== 0) throw new PkiFormatError('signature: not whole octets');
  const certificates: Uint8Array[] = [];
  const certs = reader.readOptional('certs', contextConstructed(0));
  if (certs) {
    const wrapper = reader.inside(certs);
    const list = wrapper.inside(wrapper.read('certs', TAG.sequence));
    wrapper.expectEnd('certs');
    while (!list.atEnd) certificates.push(list.copyEncoding(list.read('certs Certificate', TAG.sequence)));
  }
  reader.expectEnd('BasicOCSPResponse');

  const data = reader.inside(tbs);
  const version = data.readOptional('ResponseData version', contextConstructed(0));
  if (version) {
    const inner = data.inside(version);
    const value = inner.contents(inner.read('ResponseData version', TAG.integer));
    if (value.length !== 1 || value[0] !== 0) throw new PkiFormatError('ResponseData: version is not v1');
  }
  const responderId = readResponderId(data);
  const producedAtElement = data.read('producedAt', TAG.generalizedTime);
  const producedAt = decodeTime(TAG.generalizedTime, data.contents(producedAtElement), 'producedAt', false);
  const list = data.inside(data.read('responses', TAG.sequence));
  const responses: OcspSingleResponseInfo[] = [];
  while (!list.atEnd) responses.push(readSingleResponse(list, list.read('SingleResponse', TAG.sequence)));
  let nonce: Uint8Array | undefined;
  const extensions = data.readOptional('responseExtensions', contextConstructed(1));
  if (extensions) nonce = readNonce(data, extensions);
  data.expectEnd('ResponseData');
  return {
    responseStatus: 'successful',
    producedAt,
    ...responderId,
    ...(nonce && { nonce }),
    certificates,
    responses,
    signatureAlgorithm,
    tbsResponseData: reader.copyEncoding(tbs),
    signatureValue: new Uint8Array(signature.subarray(1)),
  };
}

/** ResponderID ::= CHOICE { byName [1] Name, byKey [2] KeyHash } (EXPLICIT tags, RFC 6960 4.2.1). */
function readResponderId(data: DerReader): { responderKeyHashHex?: string; responderNameDer?: Uint8Array } {
  const tag = data.peekTag();
  if (tag === contextConstructed(1)) {
    const byName = data.inside(data.read('responderID byName'));
    const name = byName.copyEncoding(byName.read('responderID Name', TAG.sequence));
    byName.expectEnd('responderID byName');
    return { responderNameDer: name };
  }
  const byKey = data.inside(data.read('responderID', contextConstructed(2)));
  const keyHash = byKey.contents(byKey.read('responderID KeyHash', TAG.octetString));
  byKey.expectEnd('responderID byKey');
  return { responderKeyHashHex: toHex(keyHash) };
}

function readSingleResponse(list: DerReader, element: DerElement): OcspSingleResponseInfo {
  const single = list.inside(element);
  const certIdElement = single.read('certID', TAG.sequence);
  const certId = readCertId(single, certIdElement);
  const status = readCertStatus(single);
  const thisUpdate = readGeneralizedTime(
    single,
    single.read('thisUpdate', TAG.generalizedTime),
    'thisUpdate',
  );
  const next = single.readOptional('nextUpdate', contextConstructed(0));
  let nextUpdate: Date | undefined;
  if (next) {
    const inner = single.inside(next);
    nextUpdate = readGeneralizedTime(inner, inner.read('nextUpdate', TAG.generalizedTime), 'nextUpdate');
    inner.expectEnd('nextUpdate');
  }
  single.readOptional('singleExtensions', contextConstructed(1));
  single.expectEnd('SingleResponse');
  return {
    hashAlgorithm: certId.hashAlgorithm,
    serialNumberHex: certId.serialNumberHex,
    certIdDer: certId.der,
    status,
    thisUpdate,
    ...(nextUpdate && { nextUpdate }),
  };
}

/** CertStatus ::= CHOICE { good [0] IMPLICIT NULL, revoked [1] IMPLICIT RevokedInfo, unknown [2] ... }. */
function readCertStatus(single: DerReader): OcspCertStatus {
  const tag = single.peekTag();
  if (tag === contextPrimitive(0) || tag === contextPrimitive(2)) {
    const element = single.read('certStatus');
    if (element.end !== element.contentStart) throw new PkiFormatError('certStatus: NULL with contents');
    return { kind: tag === contextPrimitive(0) ? 'good' : 'unknown' };
  }
  const revoked = single.inside(single.read('certStatus', contextConstructed(1)));
  const revocationTime = readGeneralizedTime(
    revoked,
    revoked.read('revocationTime', TAG.generalizedTime),
    'revocationTime',
  );
  const reason = revoked.readOptional('revocationReason', contextConstructed(0));
  revoked.expectEnd('RevokedInfo');
  if (!reason) return { kind: 'revoked', revocationTime };
  const inner = revoked.inside(reason);
  const code = inner.contents(inner.read('revocationReason', TAG.enumerated));
  inner.expectEnd('revocationReason');
  if (code.length !== 1 || code[0] & 0x80) throw new PkiFormatError('revocationReason: not a CRLReason');
  return { kind: 'revoked', revocationTime, reasonCode: code[0] };
}

function readGeneralizedTime(reader: DerReader, element: DerElement, what: string): Date {
  return decodeTime(TAG.generalizedTime, reader.contents(element), what, false);
}

function readNonce(data: DerReader, wrapper: DerElement): Uint8Array | undefined {
  const outer = data.inside(wrapper);
  const list = outer.inside(outer.read('responseExtensions', TAG.sequence));
  outer.expectEnd('responseExtensions');
  let nonce: Uint8Array | undefined;
  while (!list.atEnd) {
    const extension = list.inside(list.read('responseExtensions Extension', TAG.sequence));
    const oid = decodeObjectIdentifier(extension.contents(extension.read('extnID', TAG.objectIdentifier)));
    extension.readOptional('critical', TAG.boolean);
    const value = extension.contents(extension.read('extnValue', TAG.octetString));
    extension.expectEnd('Extension');
    if (oid === OCSP_ID.nonce) nonce = new Uint8Array(value);
  }
  return nonce;
}
