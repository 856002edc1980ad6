import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';

import { decodeUnsignedInteger, DerReader, readSingleElement } from './der-reader';
import { contextPrimitive, TAG } from './der-writer';
import type { DistinguishedName } from './distinguished-name';
import { EXTENSION_ID } from './extensions';
import { toHex } from './hex';
import { decodeName } from './name';
import { PkiFormatError } from './pki-format.error';
import { serialToHex } from './serial-number';

/** One revoked certificate as a CRL lists it (RFC 5280 5.1.2.6). */
export interface CrlEntryInfo {
  /** As `serialToHex` prints it. */
  serialNumberHex: string;
  revocationDate: Date;
  /** CRLReason (RFC 5280 5.3.1); 0 (unspecified) when the entry has no reasonCode extension. */
  reasonCode: number;
}

/** What a CRL says, as plain values. */
export interface CrlInfo {
  crlNumber: bigint;
  thisUpdate: Date;
  nextUpdate: Date;
  issuer: DistinguishedName;
  /** keyIdentifier of the AKI (RFC 5280 5.2.1), uppercase hex; absent without one. */
  authorityKeyIdentifierHex?: string;
  entries: CrlEntryInfo[];
}

/**
 * Reads a DER CertificateList (RFC 5280 5.1) through pkijs: an independent reading of what
 * `encodeTbsCertList` wrote, for tests and for consumers of CRLs. It needs a CRL Number and a
 * nextUpdate, as every CRL this CA issues has. Throws `PkiFormatError` for anything else. Does not
 * verify the signature.
 */
export function parseCrl(der: Uint8Array): CrlInfo {
  const crl = decodeCertificateList(der);
  const extensions = crl.crlExtensions?.extensions ?? [];
  const value = (oid: string) => extensionValue(extensions, oid);
  const crlNumber = value(EXTENSION_ID.cRLNumber);
  if (!crlNumber) throw new PkiFormatError('The CRL has no CRL Number');
  if (!crl.nextUpdate) throw new PkiFormatError('The CRL has no nextUpdate');
  const aki = value(EXTENSION_ID.authorityKeyIdentifier);
  const authorityKeyIdentifierHex = aki && akiKeyIdentifierHex(aki);
  return {
    crlNumber: decodeUnsignedInteger(integerContents(crlNumber, TAG.integer, 'CRLNumber'), 'CRLNumber'),
    thisUpdate: crl.thisUpdate.value,
    nextUpdate: crl.nextUpdate.value,
    issuer: decodeName(crl.issuer),
    ...(authorityKeyIdentifierHex !== undefined && { authorityKeyIdentifierHex }),
    entries: (crl.revokedCertificates ?? []).map((entry) => {
      const reason = extensionValue(entry.crlEntryExtensions?.extensions ?? [], EXTENSION_ID.reasonCode);
      return {
        serialNumberHex: serialToHex(entry.userCertificate.valueBlock.valueHexView),
        revocationDate: entry.revocationDate.value,
        reasonCode: reason
          ? Number(decodeUnsignedInteger(integerContents(reason, TAG.enumerated, 'CRLReason')))
          : 0,
      };
    }),
  };
}

function decodeCertificateList(der: Uint8Array): pkijs.CertificateRevocationList {
  const asn1 = asn1js.fromBER(der);
  if (asn1.offset === -1) throw new PkiFormatError(`Not DER: ${asn1.result.error}`);
  if (asn1.offset !== der.byteLength) throw new PkiFormatError('Trailing bytes after the DER CRL');
  try {
    return new pkijs.CertificateRevocationList({ schema: asn1.result });
  } catch (error) {
    throw new PkiFormatError(`Not an X.509 CRL: ${(error as Error).message}`);
  }
}

/** The extnValue octets of the one extension with `oid`, or undefined. */
function extensionValue(extensions: readonly pkijs.Extension[], oid: string): Uint8Array | undefined {
  const matching = extensions.filter(({ extnID }) => extnID === oid);
  if (matching.length > 1) throw new PkiFormatError(`Extension ${oid} appears more than once`);
  return matching[0] && new Uint8Array(matching[0].extnValue.valueBlock.valueHexView);
}

function integerContents(value: Uint8Array, tag: number, what: string): Uint8Array {
  const element = readSingleElement(value, what, tag);
  return value.subarray(element.contentStart, element.end);
}

/** AuthorityKeyIdentifier ::= SEQUENCE { keyIdentifier [0] IMPLICIT OCTET STRING OPTIONAL, ... }. */
function akiKeyIdentifierHex(value: Uint8Array): string | undefined {
  const aki = readSingleElement(value, 'AuthorityKeyIdentifier', TAG.sequence);
  const fields = new DerReader(value, aki.contentStart, aki.end);
  const keyIdentifier = fields.readOptional('AKI keyIdentifier', contextPrimitive(0));
  return keyIdentifier && toHex(fields.contents(keyIdentifier));
}
