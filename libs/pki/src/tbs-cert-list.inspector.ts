import { signatureAlgorithmFromDer, type SignatureAlgorithm } from './signature-algorithm';
import { isCrlReasonCode } from './crl-reason';
import {
  decodeObjectIdentifier,
  decodeUnsignedInteger,
  type DerElement,
  DerReader,
  readSingleElement,
} from './der-reader';
import { decodeTime } from './der-time';
import { contextConstructed, contextPrimitive, TAG } from './der-writer';
import { EXTENSION_ID } from './extensions';
import { toHex } from './hex';
import { PkiFormatError } from './pki-format.error';

/** What a TBSCertList says about itself, read without decoding its entries. */
export interface TbsCertListSummary {
  /** The issuer Name, whole DER element, to compare with the signing CA's subject. */
  issuerDer: Uint8Array;
  crlNumber: bigint;
  thisUpdate: Date;
  nextUpdate: Date;
  /** keyIdentifier of the AKI, uppercase hex, to compare with the signing CA's SKI. */
  authorityKeyIdentifierHex: string;
  /** Number of revokedCertificates entries (0 when the field is absent). */
  entryCount: number;
  /** The signature field: the signing CA must sign with exactly this algorithm. */
  signatureAlgorithm: SignatureAlgorithm;
}

// RFC 5280 5.3.1 reasonCode entry extension as `encodeTbsCertList` writes it, without the value.
// Extensions SEQUENCE { Extension SEQUENCE { OID 2.5.29.21, OCTET STRING { ENUMERATED (1 octet) } } }.
const REASON_CODE_EXTENSION_PREFIX = new Uint8Array(Buffer.from('300c300a0603551d1504030a01', 'hex'));
const MAX_INTEGER_OCTETS = 20;

/**
 * The check a CA makes before it signs a TBSCertList handed to it by another service: the octets
 * must be exactly one DER v2 TBSCertList (RFC 5280 5.1.2) of the shape `encodeTbsCertList` writes,
 * so that the CA key signs a CRL and nothing else (not a TBSCertificate, not an OCSP response):
 *
 * - version v2, signature ecdsa-with-SHA256 without parameters, an issuer Name;
 * - thisUpdate and a later nextUpdate, each UTCTime through 2049 and GeneralizedTime from 2050;
 * - revokedCertificates absent or non-empty; each entry a positive serial of at most 20 octets, a
 *   revocation time and at most a non-critical reasonCode extension with a valid reason;
 * - crlExtensions holding an Authority Key Identifier (keyIdentifier) and a CRL Number, once each,
 *   neither critical, and no other extension.
 *
 * Entries are walked in place, never materialised. Throws `PkiFormatError` for anything else. The
 * caller still compares `issuerDer` and `authorityKeyIdentifierHex` with its own certificate.
 */
export function inspectTbsCertList(tbs: Uint8Array): TbsCertListSummary {
  const outer = readSingleElement(tbs, 'TBSCertList', TAG.sequence);
  const reader = new DerReader(tbs, outer.contentStart, outer.end);

  const version = reader.contents(reader.read('TBSCertList version', TAG.integer));
  if (version.length !== 1 || version[0] !== 1) throw new PkiFormatError('TBSCertList: not a v2 CRL');
  const signature = reader.encoding(reader.read('TBSCertList signature', TAG.sequence));
  const signatureAlgorithm = signatureAlgorithmFromDer(signature);
  const issuer = reader.read('TBSCertList issuer', TAG.sequence);
  assertName(reader, issuer);
  const thisUpdate = readTime(reader, 'TBSCertList thisUpdate');
  const nextUpdate = readTime(reader, 'TBSCertList nextUpdate');
  if (nextUpdate.getTime() <= thisUpdate.getTime()) {
    throw new PkiFormatError('TBSCertList: nextUpdate is not later than thisUpdate');
  }
  let entryCount = 0;
  const revoked = reader.readOptional('TBSCertList revokedCertificates', TAG.sequence);
  if (revoked) {
    entryCount = countEntries(reader.inside(revoked));
    if (entryCount === 0) {
      throw new PkiFormatError(
        'TBSCertList: revokedCertificates must be absent, not empty (RFC 5280 5.1.2.6)',
      );
    }
  }
  const extensions = reader.read('TBSCertList crlExtensions', contextConstructed(0));
  reader.expectEnd('TBSCertList');
  const { crlNumber, authorityKeyIdentifierHex } = readCrlExtensions(reader, extensions);
  return {
    issuerDer: reader.copyEncoding(issuer),
    crlNumber,
    thisUpdate,
    nextUpdate,
    authorityKeyIdentifierHex,
    entryCount,
    signatureAlgorithm,
  };
}

/**
 * Name ::= SEQUENCE OF RelativeDistinguishedName, each a non-empty SET OF AttributeTypeAndValue;
 * RFC 5280 5.1.2.3: the issuer of a CRL is a non-empty distinguished name.
 */
function assertName(reader: DerReader, name: DerElement): void {
  const rdns = reader.inside(name);
  if (rdns.atEnd) throw new PkiFormatError('issuer: empty Name (RFC 5280 5.1.2.3)');
  while (!rdns.atEnd) {
    const rdn = rdns.inside(rdns.read('issuer RDN', TAG.set));
    if (rdn.atEnd) throw new PkiFormatError('issuer: empty RDN');
    while (!rdn.atEnd) {
      const attribute = rdn.inside(rdn.read('issuer attribute', TAG.sequence));
      decodeObjectIdentifier(
        attribute.contents(attribute.read('issuer attribute type', TAG.objectIdentifier)),
      );
      attribute.read('issuer attribute value');
      attribute.expectEnd('issuer attribute');
    }
  }
}

function readTime(reader: DerReader, what: string): Date {
  const element = reader.read(what);
  return decodeTime(element.tag, reader.contents(element), what, true);
}

/**
 * Walks the entries without building anything per entry: SEQUENCE { userCertificate INTEGER,
 * revocationDate Time, crlEntryExtensions reasonCode only OPTIONAL }. Errors name the entry.
 */
function countEntries(entries: DerReader): number {
  let count = 0;
  try {
    while (!entries.atEnd) {
      checkEntry(entries, entries.read('entry', TAG.sequence));
      count++;
    }
  } catch (error) {
    throw new PkiFormatError(`revokedCertificates entry ${count}: ${(error as Error).message}`);
  }
  return count;
}

function checkEntry(entries: DerReader, element: DerElement): void {
  const { bytes } = entries;
  const entry = entries.inside(element);
  const serial = entry.read('userCertificate', TAG.integer);
  const first = serial.contentStart;
  const octets = serial.end - first;
  // RFC 5280 4.1.2.2: positive, at most 20 octets; X.690 8.3.2: minimal.
  if (
    octets === 0 ||
    octets > MAX_INTEGER_OCTETS ||
    bytes[first] & 0x80 ||
    (bytes[first] === 0 && (octets === 1 || !(bytes[first + 1] & 0x80)))
  ) {
    throw new PkiFormatError(
      `userCertificate: not a positive, minimal INTEGER of at most ${MAX_INTEGER_OCTETS} octets`,
    );
  }
  assertTimeShape(bytes, entry.read('revocationDate'), 'revocationDate');
  if (entry.atEnd) return;
  const extensions = entry.read('crlEntryExtensions', TAG.sequence);
  const prefixLength = REASON_CODE_EXTENSION_PREFIX.length;
  if (
    extensions.end - extensions.start !== prefixLength + 1 ||
    !matchesAt(bytes, extensions.start, REASON_CODE_EXTENSION_PREFIX) ||
    !isCrlReasonCode(bytes[extensions.end - 1])
  ) {
    throw new PkiFormatError('only a non-critical reasonCode extension with a valid reason is allowed');
  }
  entry.expectEnd('entry');
}

/**
 * The form of a Time without making a Date of it (a million entries): UTCTime of 13 or
 * GeneralizedTime of 15 characters, digits then `Z`, the GeneralizedTime only outside 1950-2049.
 */
function assertTimeShape(bytes: Uint8Array, time: DerElement, what: string): void {
  const length = time.end - time.contentStart;
  const utc = time.tag === TAG.utcTime && length === 13;
  const generalized = time.tag === TAG.generalizedTime && length === 15;
  if (!utc && !generalized) throw new PkiFormatError(`${what}: not a UTCTime or GeneralizedTime of RFC 5280`);
  for (let i = time.contentStart; i < time.end - 1; i++) {
    if (bytes[i] < 0x30 || bytes[i] > 0x39) throw new PkiFormatError(`${what}: not digits`);
  }
  if (bytes[time.end - 1] !== 0x5a) throw new PkiFormatError(`${what}: not in UTC (Z)`);
  if (generalized) {
    const at = time.contentStart;
    const century = (bytes[at] - 0x30) * 10 + (bytes[at + 1] - 0x30);
    const year = century * 100 + (bytes[at + 2] - 0x30) * 10 + (bytes[at + 3] - 0x30);
    if (year >= 1950 && year < 2050) {
      throw new PkiFormatError(`${what}: a year from 1950 to 2049 must be a UTCTime (RFC 5280 5.1.2.6)`);
    }
  }
}

/** crlExtensions: exactly an AKI with a keyIdentifier and a CRL Number, neither critical. */
function readCrlExtensions(
  reader: DerReader,
  wrapper: DerElement,
): { crlNumber: bigint; authorityKeyIdentifierHex: string } {
  const outer = reader.inside(wrapper);
  const list = outer.inside(outer.read('crlExtensions', TAG.sequence));
  outer.expectEnd('crlExtensions');
  let crlNumber: bigint | undefined;
  let authorityKeyIdentifierHex: string | undefined;
  while (!list.atEnd) {
    const extension = list.inside(list.read('crlExtensions extension', TAG.sequence));
    const oid = decodeObjectIdentifier(extension.contents(extension.read('extnID', TAG.objectIdentifier)));
    if (extension.peekTag() === TAG.boolean) {
      // DER leaves out critical FALSE (the DEFAULT), so a BOOLEAN here is TRUE or not DER.
      throw new PkiFormatError(`CRL extension ${oid}: critical extensions are not allowed`);
    }
    const value = extension.contents(extension.read(`CRL extension ${oid} extnValue`, TAG.octetString));
    extension.expectEnd(`CRL extension ${oid}`);
    if (oid === EXTENSION_ID.cRLNumber && crlNumber === undefined) {
      const integer = readSingleElement(value, 'CRLNumber', TAG.integer);
      const contents = value.subarray(integer.contentStart, integer.end);
      if (contents.length > MAX_INTEGER_OCTETS) {
        throw new PkiFormatError(`CRLNumber: longer than ${MAX_INTEGER_OCTETS} octets (RFC 5280 5.2.3)`);
      }
      crlNumber = decodeUnsignedInteger(contents, 'CRLNumber');
    } else if (oid === EXTENSION_ID.authorityKeyIdentifier && authorityKeyIdentifierHex === undefined) {
      const aki = readSingleElement(value, 'AuthorityKeyIdentifier', TAG.sequence);
      const fields = new DerReader(value, aki.contentStart, aki.end);
      const keyIdentifier = fields.contents(fields.read('AKI keyIdentifier', contextPrimitive(0)));
      fields.expectEnd('AuthorityKeyIdentifier (only keyIdentifier is allowed)');
      if (keyIdentifier.length === 0) throw new PkiFormatError('AKI keyIdentifier: empty');
      authorityKeyIdentifierHex = toHex(keyIdentifier);
    } else {
      throw new PkiFormatError(`CRL extension ${oid}: not allowed here, or present twice`);
    }
  }
  if (crlNumber === undefined) throw new PkiFormatError('crlExtensions: no CRL Number (RFC 5280 5.2.3)');
  if (authorityKeyIdentifierHex === undefined) {
    throw new PkiFormatError('crlExtensions: no Authority Key Identifier (RFC 5280 5.2.1)');
  }
  return { crlNumber, authorityKeyIdentifierHex };
}

function matchesAt(bytes: Uint8Array, offset: number, pattern: Uint8Array): boolean {
  for (let i = 0; i < pattern.length; i++) if (bytes[offset + i] !== pattern[i]) return false;
  return true;
}
