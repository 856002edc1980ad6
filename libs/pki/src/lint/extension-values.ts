import { DerReader, readSingleElement } from '../der-reader';
import { TAG } from '../der-writer';
import { EXTENSION_ID, KEY_PURPOSE_ID } from '../extensions';
import { oidText } from './oid';
import type { TbsCertificateView } from './tbs-certificate.view';

/** Reading the values of the extensions the lints look into. Malformed values throw PkiFormatError. */

/** BasicConstraints ::= SEQUENCE { cA BOOLEAN DEFAULT FALSE, ... } (RFC 5280 4.2.1.9). */
export function isCa(view: TbsCertificateView): boolean {
  const extension = view.extensions.get(EXTENSION_ID.basicConstraints);
  if (!extension) return false;
  const reader = new DerReader(extension.value);
  const sequence = reader.inside(readSingleElement(extension.value, 'BasicConstraints', TAG.sequence));
  const cA = sequence.readOptional('cA', TAG.boolean);
  return cA !== undefined && sequence.contents(cA)[0] !== 0;
}

/** The KeyUsage bits set, by RFC 5280 4.2.1.3 bit number; undefined without the extension. */
export function keyUsageBits(view: TbsCertificateView): Set<number> | undefined {
  const extension = view.extensions.get(EXTENSION_ID.keyUsage);
  if (!extension) return undefined;
  const bitString = readSingleElement(extension.value, 'KeyUsage', TAG.bitString);
  const octets = extension.value.subarray(bitString.contentStart + 1, bitString.end);
  const bits = new Set<number>();
  octets.forEach((octet, index) => {
    for (let bit = 0; bit < 8; bit++) if (octet & (0x80 >> bit)) bits.add(index * 8 + bit);
  });
  return bits;
}

export const KEY_USAGE_BIT = {
  digitalSignature: 0,
  keyEncipherment: 2,
  dataEncipherment: 3,
  keyCertSign: 5,
  cRLSign: 6,
} as const;

/** The KeyPurposeIds of the EKU extension (RFC 5280 4.2.1.12); empty without it. */
export function extendedKeyUsages(view: TbsCertificateView): string[] {
  const extension = view.extensions.get(EXTENSION_ID.extKeyUsage);
  if (!extension) return [];
  const sequence = new DerReader(extension.value).inside(
    readSingleElement(extension.value, 'ExtKeyUsageSyntax', TAG.sequence),
  );
  const purposes: string[] = [];
  while (!sequence.atEnd) {
    purposes.push(oidText(sequence.contents(sequence.read('KeyPurposeId', TAG.objectIdentifier))));
  }
  return purposes;
}

export const SERVER_AUTH = KEY_PURPOSE_ID.serverAuth;
export const OCSP_SIGNING = KEY_PURPOSE_ID.ocspSigning;

// GeneralName [2] dNSName and [6] uniformResourceIdentifier, IMPLICIT IA5String (RFC 5280 4.2.1.6).
const DNS_NAME_TAG = 0x82;
const URI_TAG = 0x86;

/** The dNSName entries of the subjectAltName extension, as written (IA5String octets). */
export function dnsNames(view: TbsCertificateView): string[] {
  const extension = view.extensions.get(EXTENSION_ID.subjectAltName);
  if (!extension) return [];
  const names = new DerReader(extension.value).inside(
    readSingleElement(extension.value, 'GeneralNames', TAG.sequence),
  );
  const found: string[] = [];
  while (!names.atEnd) {
    const name = names.read('GeneralName');
    if (name.tag === DNS_NAME_TAG) found.push(Buffer.from(names.contents(name)).toString('latin1'));
  }
  return found;
}

/** Every uniformResourceIdentifier GeneralName anywhere in an extension value (CDP, AIA). */
export function urisIn(value: Uint8Array): string[] {
  const uris: string[] = [];
  const walk = (reader: DerReader): void => {
    while (!reader.atEnd) {
      const element = reader.read('element');
      if (element.tag === URI_TAG) uris.push(Buffer.from(reader.contents(element)).toString('latin1'));
      else if (element.tag & 0x20) walk(reader.inside(element));
    }
  };
  walk(new DerReader(value));
  return uris;
}
