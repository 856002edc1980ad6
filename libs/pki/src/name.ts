import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';

import type { DistinguishedName } from './distinguished-name';

// Attribute types of X.520 (RFC 5280 Appendix A.1).
const ATTRIBUTE_TYPE = {
  country: '2.5.4.6',
  organization: '2.5.4.10',
  organizationalUnit: '2.5.4.11',
  commonName: '2.5.4.3',
} as const satisfies Record<keyof DistinguishedName, string>;

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
  const rdns = RDN_ORDER.flatMap((attribute) => {
    const value = name[attribute];
    if (value === undefined) return [];
    const typeAndValue = new asn1js.Sequence({
      value: [
        new asn1js.ObjectIdentifier({ value: ATTRIBUTE_TYPE[attribute] }),
        encodeValue(attribute, value),
      ],
    });
    return [new asn1js.Set({ value: [typeAndValue] })];
  });
  return pkijs.RelativeDistinguishedNames.fromBER(new asn1js.Sequence({ value: rdns }).toBER(false));
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

function encodeValue(attribute: keyof DistinguishedName, value: string): asn1js.BaseBlock {
  if (attribute === 'country') {
    // X.520 CountryName: PrintableString (SIZE (2)).
    if (!/^[A-Z]{2}$/.test(value))
      throw new RangeError(`country must be two uppercase letters, not "${value}"`);
    return new asn1js.PrintableString({ value });
  }
  const length = [...value].length;
  if (length < 1 || length > UPPER_BOUND) {
    throw new RangeError(`${attribute} must have 1 to ${UPPER_BOUND} characters, not ${length}`);
  }
  // RFC 5280 4.1.2.4: new certificates encode DirectoryString as UTF8String.
  return new asn1js.Utf8String({ value });
}

function stringValue(value: pkijs.AttributeValueType): string {
  // pkijs types the value as a string type, but a decoded certificate may hold any ASN.1 type.
  const decoded: unknown = value.valueBlock.value;
  if (typeof decoded !== 'string') throw new TypeError('A Name attribute value is not a string type');
  return decoded;
}
