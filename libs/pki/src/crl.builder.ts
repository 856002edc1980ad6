import * as asn1js from 'asn1js';

import { signatureAlgorithmFromDer, signatureAlgorithmOfCertificate } from './signature-algorithm';
import { EncodedCrlEntries, type RevokedCertificateEntry } from './crl-entries';
import { DerReader, readSingleElement } from './der-reader';
import { encodeTimeDer } from './der-time';
import {
  contextConstructed,
  contextPrimitive,
  derBitString,
  derElement,
  derLengthSize,
  derObjectIdentifier,
  derOctetString,
  derSequence,
  TAG,
  unsignedIntegerContents,
  writeDerLength,
} from './der-writer';
import { EXTENSION_ID } from './extensions';
import { decodeIssuerCertificate } from './issuer-certificate';
import { readTbsCertificateFields } from './tbs-certificate.reader';

export type { RevokedCertificateEntry } from './crl-entries';

/** What a complete, full CRL of one CA says (RFC 5280 5.1). */
export interface CrlProfile {
  /** The CA that signs the CRL: its name and key identifier go into the CRL. */
  issuerCertificateDer: Uint8Array;
  /** RFC 5280 5.2.3: monotonically increasing, non-negative, at most 20 octets. */
  crlNumber: bigint;
  thisUpdate: Date;
  /** RFC 5280 5.1.2.5: conforming CRL issuers MUST include nextUpdate; later than thisUpdate. */
  nextUpdate: Date;
  /**
   * Any iterable (an array, a generator over a database cursor), read once, in order; or entries
   * encoded earlier (kept between CRLs, so only new revocations are encoded each time).
   */
  entries: Iterable<RevokedCertificateEntry> | EncodedCrlEntries;
}

// RFC 5280 5.1.2.1: version v2 (INTEGER 1), required because the CRL has extensions.
const VERSION_V2 = Uint8Array.of(TAG.integer, 1, 1);
// RFC 5280 5.2.3: at most 20 content octets.
const MAX_INTEGER_OCTETS = 20;
// Bit 6 of KeyUsage (RFC 5280 4.2.1.3), in the first octet of the BIT STRING.
const KEY_USAGE_CRL_SIGN = 0x80 >> 6;

/**
 * The DER TBSCertList of a v2 CRL (RFC 5280 5.1.2), ready for `signTbs`:
 *
 * - version v2, signature: the algorithm the issuer's key signs with (`signatureAlgorithmOfCertificate`);
 * - issuer: the issuer certificate's subject, copied byte for byte, so that it matches the
 *   certificates' issuer field exactly (RFC 5280 6.3.3 (b));
 * - thisUpdate, nextUpdate: UTCTime through 2049, GeneralizedTime from 2050 (5.1.2.4, 5.1.2.5);
 * - revokedCertificates: absent when there are no entries (5.1.2.6), otherwise one entry each, in
 *   the order given, with a reasonCode extension unless the reason is unspecified (5.3.1);
 * - crlExtensions: Authority Key Identifier (the issuer's SKI, or computed from its key; 5.2.1) and
 *   CRL Number (5.2.3), both non-critical.
 *
 * The entries are written straight to DER octets, never as one object each: a million entries take
 * well under a second and about the size of the result in memory. Throws RangeError for an invalid
 * profile or entry, or an issuer that is not a CA allowed to sign CRLs (keyUsage cRLSign).
 */
export function encodeTbsCertList(profile: CrlProfile): Uint8Array {
  const issuer = decodeIssuerCertificate(profile.issuerCertificateDer);
  assertMaySignCrls(issuer.certificate.extensions ?? []);
  const { subjectDer } = readTbsCertificateFields(profile.issuerCertificateDer);
  const thisUpdate = encodeTimeDer(profile.thisUpdate);
  const nextUpdate = encodeTimeDer(profile.nextUpdate);
  if (Math.floor(profile.nextUpdate.getTime() / 1000) <= Math.floor(profile.thisUpdate.getTime() / 1000)) {
    throw new RangeError('nextUpdate must be later than thisUpdate');
  }
  const crlExtensions = derElement(
    contextConstructed(0),
    derSequence(authorityKeyIdentifierExtension(issuer.keyIdentifier), crlNumberExtension(profile.crlNumber)),
  );
  const algorithm = signatureAlgorithmOfCertificate(profile.issuerCertificateDer).der;
  const head = [VERSION_V2, algorithm, subjectDer, thisUpdate, nextUpdate];
  const entries =
    profile.entries instanceof EncodedCrlEntries
      ? profile.entries
      : EncodedCrlEntries.encode(profile.entries);
  const entriesLength = entries.byteLength;

  let contentLength = crlExtensions.byteLength;
  for (const part of head) contentLength += part.byteLength;
  if (entriesLength > 0) contentLength += 1 + derLengthSize(entriesLength) + entriesLength;
  const tbs = new Uint8Array(1 + derLengthSize(contentLength) + contentLength);
  tbs[0] = TAG.sequence;
  let offset = writeDerLength(tbs, 1, contentLength);
  for (const part of head) {
    tbs.set(part, offset);
    offset += part.byteLength;
  }
  if (entriesLength > 0) {
    tbs[offset] = TAG.sequence;
    offset = writeDerLength(tbs, offset + 1, entriesLength);
    for (const chunk of entries.chunks) {
      tbs.set(chunk, offset);
      offset += chunk.byteLength;
    }
  }
  tbs.set(crlExtensions, offset);
  return tbs;
}

/**
 * CertificateList ::= SEQUENCE { tbsCertList, signatureAlgorithm, signatureValue } (RFC 5280 5.1.1)
 * around exactly the TBSCertList octets that were signed, with the TBSCertList's own signature
 * algorithm (RFC 5280 5.1.1.2: the two must be equal) and the value from `signTbs` in the BIT
 * STRING. Throws `PkiFormatError` when the TBSCertList is not one DER SEQUENCE of a known
 * algorithm, or an ECDSA value is not one DER Ecdsa-Sig-Value.
 */
export function assembleCertificateList(tbs: Uint8Array, signatureValue: Uint8Array): Uint8Array {
  const outer = readSingleElement(tbs, 'TBSCertList', TAG.sequence);
  const reader = new DerReader(tbs, outer.contentStart, outer.end);
  reader.read('TBSCertList version', TAG.integer);
  const algorithm = signatureAlgorithmFromDer(
    reader.encoding(reader.read('TBSCertList signature', TAG.sequence)),
  );
  if (algorithm.coordinateOctets > 0) readSingleElement(signatureValue, 'Ecdsa-Sig-Value', TAG.sequence);
  return derSequence(tbs, algorithm.der, derBitString(signatureValue));
}

/** RFC 5280 5.2.1: keyIdentifier only, non-critical. */
function authorityKeyIdentifierExtension(keyIdentifier: Uint8Array): Uint8Array {
  const value = derSequence(derElement(contextPrimitive(0), keyIdentifier));
  return derSequence(derObjectIdentifier(EXTENSION_ID.authorityKeyIdentifier), derOctetString(value));
}

/** RFC 5280 5.2.3: CRLNumber ::= INTEGER (0..MAX), non-critical, at most 20 octets. */
function crlNumberExtension(crlNumber: bigint): Uint8Array {
  if (typeof crlNumber !== 'bigint' || crlNumber < 0n) {
    throw new RangeError('crlNumber must be a non-negative bigint');
  }
  const contents = unsignedIntegerContents(crlNumber);
  if (contents.length > MAX_INTEGER_OCTETS) {
    throw new RangeError(`crlNumber takes ${contents.length} octets, more than ${MAX_INTEGER_OCTETS}`);
  }
  return derSequence(
    derObjectIdentifier(EXTENSION_ID.cRLNumber),
    derOctetString(derElement(TAG.integer, contents)),
  );
}

/** RFC 5280 6.3.3 (f): a CRL issuer whose certificate has keyUsage must have cRLSign set. */
function assertMaySignCrls(extensions: readonly { extnID: string; parsedValue?: unknown }[]): void {
  const keyUsage = extensions.find(({ extnID }) => extnID === EXTENSION_ID.keyUsage)?.parsedValue;
  if (keyUsage === undefined) return;
  const bits = keyUsage instanceof asn1js.BitString ? keyUsage.valueBlock.valueHexView : new Uint8Array(0);
  if (!(bits[0] & KEY_USAGE_CRL_SIGN)) {
    throw new RangeError('The issuer certificate may not sign CRLs (keyUsage without cRLSign)');
  }
}
