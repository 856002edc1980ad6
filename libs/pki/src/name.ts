import * as pkijs from 'pkijs';

import { derElement, derObjectIdentifier, derSequence, TAG } from './der-writer';
import type { DistinguishedName, LeafSubject } from './distinguished-name';

// Attribute types of X.520 (RFC 5280 Appendix A.1).
const ATTRIBUTE_TYPE = {
  country: '2.5.4.6',
  organization: '2.5.4.10',
  organizationalUnit: '2.5.4.11',
  commonName: '2.5.4.3',
} as const satisfies Record<keyof DistinguishedName, string>;

const ATTRIBUTE_TYPE_DER = Object.fromEntries(
  Object.entries(ATTRIBUTE_TYPE).map(([attribute, oid]) => [attribute, derObjectIdentifier(oid)]),
) as Record<keyof DistinguishedName, Uint8Array>;

// Universal tags of the two string types written (X.680 8.4).
const UTF8_STRING = 0x0c;
const PRINTABLE_STRING = 0x13;

// Most significant first, so that openssl prints `C = US, O = Acme, OU = X, CN = Y`.
const RDN_ORDER: readonly (keyof DistinguishedName)[] = [
  'country',
  'organization',
  'organizationalUnit',
  'commonName',
];

// ub-common-name, ub-organization-name, ub-organizational-unit-name (RFC 5280 Appendix A.1).
const UPPER_BOUND = 64;

/**
 * Encodes a Name (RFC 5280 4.1.2.4) as a SEQUENCE of single-valued RDNs. pkijs would put every
 * attribute pushed into `typesAndValues` into one multi-valued RDN (`O = … + CN = …`), so the DER
 * is built here and handed to pkijs as already-encoded bytes, which it then writes unchanged.
 */
export function encodeName(name: DistinguishedName): pkijs.RelativeDistinguishedNames {
  return pkijs.RelativeDistinguishedNames.fromBER(encodeNameDer(name));
}

/** `encodeName` as DER bytes, written directly (the leaf builder's hot path needs no objects). */
export function encodeNameDer(name: DistinguishedName | LeafSubject): Uint8Array {
  const rdns = RDN_ORDER.flatMap((attribute) => {
    const value = name[attribute];
    if (value === undefined) return [];
    const typeAndValue = derSequence(ATTRIBUTE_TYPE_DER[attribute], encodeValue(attribute, value));
    return [derElement(TAG.set, typeAndValue)];
  });
  return derSequence(...rdns);
}

/**
 * Reads the attributes this CA knows from a Name, whatever the RDN layout (the first value of each
 * wins; other attributes are ignored). `commonName` is '' when the Name has none.
 */
export function decodeName(rdns: pkijs.RelativeDistinguishedNames): DistinguishedName {
  const name: DistinguishedName = { commonName: '' };
  for (const attribute of [...RDN_ORDER].reverse()) {
    const typeAndValue = rdns.typesAndValues.find(({ type }) => type === ATTRIBUTE_TYPE[attribute]);
    if (typeAndValue) name[attribute] = stringValue(typeAndValue.value);
  }
  return name;
}

function encodeValue(attribute: keyof DistinguishedName, value: string): Uint8Array {
  if (attribute === 'country') {
    // X.520 CountryName: PrintableString (SIZE (2)).
    if (!/^[A-Z]{2}$/.test(value))
      throw new RangeError(`country must be two uppercase letters, not "${value}"`);
    return derElement(PRINTABLE_STRING, Buffer.from(value, 'ascii'));
  }
  const length = [...value].length;
  if (length < 1 || length > UPPER_BOUND) {
    throw new RangeError(`${attribute} must have 1 to ${UPPER_BOUND} characters, not ${length}`);
  }
  // RFC 5280 4.1.2.4: new certificates encode DirectoryString as UTF8String.
  return derElement(UTF8_STRING, Buffer.from(value, 'utf8'));
}

function stringValue(value: pkijs.AttributeValueType): string {
  // pkijs types the value as a string type, but a decoded certificate may hold any ASN.1 type.
  const decoded: unknown = value.valueBlock.value;
  if (typeof decoded !== 'string') throw new TypeError('A Name attribute value is not a string type');
  return decoded;
}
