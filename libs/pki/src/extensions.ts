import { createHash } from 'node:crypto';

import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';

/**
 * Certificate extensions shared by the CA, leaf and OCSP-signer profiles (and, for the AKI, CRLs).
 * Each helper returns a ready pkijs `Extension` with the criticality RFC 5280 asks for.
 */

// id-ce arc (RFC 5280 4.2.1, CRL extensions 5.2 and 5.3), id-pe arc (RFC 5280 4.2.2, RFC 7633) and
// id-pkix-ocsp (RFC 6960).
export const EXTENSION_ID = {
  subjectKeyIdentifier: '2.5.29.14',
  keyUsage: '2.5.29.15',
  subjectAltName: '2.5.29.17',
  basicConstraints: '2.5.29.19',
  nameConstraints: '2.5.29.30',
  cRLNumber: '2.5.29.20',
  reasonCode: '2.5.29.21',
  cRLDistributionPoints: '2.5.29.31',
  authorityKeyIdentifier: '2.5.29.35',
  extKeyUsage: '2.5.29.37',
  authorityInfoAccess: '1.3.6.1.5.5.7.1.1',
  tlsFeature: '1.3.6.1.5.5.7.1.24',
  ocspNoCheck: '1.3.6.1.5.5.7.48.1.5',
} as const;

/** KeyPurposeId values of RFC 5280 4.2.1.12 (id-kp arc), by the names RFC 5280 gives them. */
export const KEY_PURPOSE_ID = {
  serverAuth: '1.3.6.1.5.5.7.3.1',
  clientAuth: '1.3.6.1.5.5.7.3.2',
  codeSigning: '1.3.6.1.5.5.7.3.3',
  emailProtection: '1.3.6.1.5.5.7.3.4',
  timeStamping: '1.3.6.1.5.5.7.3.8',
  ocspSigning: '1.3.6.1.5.5.7.3.9',
} as const;
export type KeyPurpose = keyof typeof KEY_PURPOSE_ID;

/** accessMethod values of the Authority Information Access extension (RFC 5280 4.2.2.1). */
export const ACCESS_METHOD_ID = {
  ocsp: '1.3.6.1.5.5.7.48.1',
  caIssuers: '1.3.6.1.5.5.7.48.2',
} as const;

/** TLS extension number of status_request (RFC 6066 section 8), the one feature of must-staple. */
export const TLS_FEATURE_STATUS_REQUEST = 5;

// GeneralName CHOICE tags (RFC 5280 4.2.1.6).
export const GENERAL_NAME_TYPE = { dNSName: 2, uniformResourceIdentifier: 6, iPAddress: 7 } as const;

/** KeyUsage bits in their RFC 5280 4.2.1.3 order: the index is the bit number. */
const KEY_USAGE_BITS = [
  'digitalSignature',
  'nonRepudiation',
  'keyEncipherment',
  'dataEncipherment',
  'keyAgreement',
  'keyCertSign',
  'cRLSign',
  'encipherOnly',
  'decipherOnly',
] as const;
export type KeyUsage = (typeof KEY_USAGE_BITS)[number];

/**
 * RFC 5280 4.2.1.2 method (1): the SHA-1 of the subjectPublicKey BIT STRING's value (without tag,
 * length and unused-bits octet). Also the keyIdentifier of the AKI of everything the key signs.
 */
export function keyIdentifier(publicKeyInfo: pkijs.PublicKeyInfo): Uint8Array {
  const subjectPublicKey = publicKeyInfo.subjectPublicKey.valueBlock.valueHexView;
  return new Uint8Array(createHash('sha1').update(subjectPublicKey).digest());
}

/** RFC 5280 4.2.1.2: MUST NOT be critical. */
export function subjectKeyIdentifierExtension(keyId: Uint8Array): pkijs.Extension {
  return extension(EXTENSION_ID.subjectKeyIdentifier, false, new asn1js.OctetString({ valueHex: keyId }));
}

/** RFC 5280 4.2.1.1: keyIdentifier only, MUST NOT be critical. */
export function authorityKeyIdentifierExtension(keyId: Uint8Array): pkijs.Extension {
  const aki = new pkijs.AuthorityKeyIdentifier({
    keyIdentifier: new asn1js.OctetString({ valueHex: keyId }),
  });
  return extension(EXTENSION_ID.authorityKeyIdentifier, false, aki.toSchema());
}

/**
 * RFC 5280 4.2.1.9: MUST be critical in CA certificates; marked critical in leaves too, which the
 * RFC allows. cA FALSE is the DEFAULT and so absent from the DER (X.690 11.5).
 */
export function basicConstraintsExtension(constraints: {
  cA: boolean;
  pathLenConstraint?: number;
}): pkijs.Extension {
  const value = new pkijs.BasicConstraints(
    constraints.pathLenConstraint === undefined
      ? { cA: constraints.cA }
      : { cA: constraints.cA, pathLenConstraint: constraints.pathLenConstraint },
  );
  return extension(EXTENSION_ID.basicConstraints, true, value.toSchema());
}

/** RFC 5280 4.2.1.3: SHOULD be critical; a named BIT STRING without trailing zero bits (X.690 11.2.2). */
export function keyUsageExtension(usages: readonly KeyUsage[]): pkijs.Extension {
  if (usages.length === 0) throw new RangeError('keyUsage needs at least one bit set');
  const bits = usages.map((usage) => KEY_USAGE_BITS.indexOf(usage));
  const bitLength = Math.max(...bits) + 1;
  const octets = new Uint8Array(Math.ceil(bitLength / 8));
  for (const bit of bits) octets[bit >> 3] |= 0x80 >> (bit & 7);
  const bitString = new asn1js.BitString({ valueHex: octets, unusedBits: octets.length * 8 - bitLength });
  return extension(EXTENSION_ID.keyUsage, true, bitString);
}

/** RFC 5280 4.2.1.12: a non-empty SEQUENCE of KeyPurposeId; not critical (this CA's choice). */
export function extendedKeyUsageExtension(purposes: readonly KeyPurpose[]): pkijs.Extension {
  if (purposes.length === 0) throw new RangeError('extendedKeyUsage needs at least one purpose');
  const keyPurposes = [...new Set(purposes)].map((purpose) => KEY_PURPOSE_ID[purpose]);
  return extension(EXTENSION_ID.extKeyUsage, false, new pkijs.ExtKeyUsage({ keyPurposes }).toSchema());
}

/**
 * RFC 5280 4.2.1.6: dNSName entries; critical only when the subject is empty. Each name is
 * an IA5String in the preferred name syntax (letters, digits, hyphens; underscores tolerated), and
 * may start with one wildcard label `*.` (RFC 6125 6.4.3), which matches exactly one label.
 */
export function subjectAltNameExtension(dnsNames: readonly string[], critical = false): pkijs.Extension {
  if (dnsNames.length === 0) throw new RangeError('subjectAltName needs at least one name');
  const altNames = dnsNames.map(
    (name) => new pkijs.GeneralName({ type: GENERAL_NAME_TYPE.dNSName, value: assertDnsName(name) }),
  );
  return extension(EXTENSION_ID.subjectAltName, critical, new pkijs.AltName({ altNames }).toSchema());
}

/**
 * RFC 5280 4.2.1.13: one DistributionPoint whose distributionPoint is a fullName holding one URI,
 * without reasons or cRLIssuer (the CA signs its own complete CRL); SHOULD be non-critical.
 */
export function crlDistributionPointsExtension(url: string): pkijs.Extension {
  const distributionPoint = new pkijs.DistributionPoint({ distributionPoint: [uriName(url)] });
  const value = new pkijs.CRLDistributionPoints({ distributionPoints: [distributionPoint] });
  return extension(EXTENSION_ID.cRLDistributionPoints, false, value.toSchema());
}

/** RFC 5280 4.2.2.1: id-ad-ocsp and id-ad-caIssuers URIs, either or both; MUST be non-critical. */
export function authorityInfoAccessExtension(urls: { ocsp?: string; caIssuers?: string }): pkijs.Extension {
  const accessDescriptions = (['ocsp', 'caIssuers'] as const).flatMap((method) => {
    const url = urls[method];
    if (url === undefined) return [];
    return [
      new pkijs.AccessDescription({ accessMethod: ACCESS_METHOD_ID[method], accessLocation: uriName(url) }),
    ];
  });
  if (accessDescriptions.length === 0)
    throw new RangeError('authorityInfoAccess needs an OCSP or caIssuers URL');
  const value = new pkijs.InfoAccess({ accessDescriptions });
  return extension(EXTENSION_ID.authorityInfoAccess, false, value.toSchema());
}

/**
 * RFC 7633 section 4.2 TLS Feature "must-staple": Features ::= SEQUENCE OF INTEGER holding
 * status_request (5). The RFC leaves criticality open; non-critical, as every public CA writes it.
 */
export function tlsFeatureMustStapleExtension(): pkijs.Extension {
  const features = new asn1js.Sequence({
    value: [new asn1js.Integer({ value: TLS_FEATURE_STATUS_REQUEST })],
  });
  return extension(EXTENSION_ID.tlsFeature, false, features);
}

/** RFC 6960 4.2.2.2.1 id-pkix-ocsp-nocheck: a NULL value, in a delegated OCSP signer's certificate. */
export function ocspNoCheckExtension(): pkijs.Extension {
  return extension(EXTENSION_ID.ocspNoCheck, false, new asn1js.Null());
}

/**
 * An extension whose extnValue contents are already DER-encoded by the caller, not critical (a
 * relying party that does not know the OID must be able to ignore it, RFC 5280 4.2). The value
 * must be exactly one complete ASN.1 element.
 */
export function customExtension(oid: string, value: Uint8Array): pkijs.Extension {
  if (!isObjectIdentifier(oid)) throw new RangeError(`Not a dotted object identifier: "${oid}"`);
  const asn1 = asn1js.fromBER(value);
  if (asn1.offset === -1 || asn1.offset !== value.byteLength) {
    throw new RangeError(`The value of extension ${oid} is not exactly one DER element`);
  }
  return new pkijs.Extension({ extnID: oid, critical: false, extnValue: toArrayBuffer(value) });
}

/** X.660 dotted form: first arc 0, 1 or 2; below 0 and 1 at most 39; no leading zeros. */
export function isObjectIdentifier(oid: string): boolean {
  const match = /^([0-2])\.(0|[1-9]\d*)((?:\.(?:0|[1-9]\d*))*)$/.exec(oid);
  return match !== null && (match[1] === '2' || Number(match[2]) <= 39);
}

// RFC 1034 3.5 labels of at most 63 octets, with underscores tolerated (service labels).
const DNS_LABEL = '[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?';
const DNS_NAME = new RegExp(`^(?:\\*\\.)?${DNS_LABEL}(?:\\.${DNS_LABEL})*$`);
const MAX_DNS_NAME_LENGTH = 253;

function assertDnsName(name: string): string {
  if (name.length > MAX_DNS_NAME_LENGTH || !DNS_NAME.test(name)) {
    throw new RangeError(`Not a DNS name or single-label wildcard: "${name}"`);
  }
  return name;
}

/** RFC 5280 4.2.1.6: an absolute URI (scheme and scheme-specific part) in an IA5String. */
function uriName(url: string): pkijs.GeneralName {
  if (!/^[\x21-\x7E]+$/.test(url) || !URL.canParse(url))
    throw new RangeError(`Not an absolute ASCII URI: "${url}"`);
  return new pkijs.GeneralName({ type: GENERAL_NAME_TYPE.uniformResourceIdentifier, value: url });
}

function extension(extnID: string, critical: boolean, value: asn1js.BaseBlock): pkijs.Extension {
  return new pkijs.Extension({ extnID, critical, extnValue: value.toBER(false) });
}

function toArrayBuffer(bytes: Uint8Array): ArrayBuffer {
  return bytes.slice().buffer;
}
