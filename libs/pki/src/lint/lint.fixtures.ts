import {
  contextConstructed,
  derBitString,
  derElement,
  derEnumerated,
  derObjectIdentifier,
  derOctetString,
  derSequence,
  TAG,
} from '../der-writer';
import { encodeGeneralizedTimeDer, encodeTimeDer } from '../der-time';
import { EXTENSION_ID, KEY_PURPOSE_ID } from '../extensions';

/** DER pieces for the lint specs: valid by default, each part replaceable to break one rule. */

export const UTF8 = 0x0c;
export const PRINTABLE = 0x13;
const BOOLEAN_TRUE = Uint8Array.of(TAG.boolean, 1, 0xff);
const text = (value: string) => new Uint8Array(Buffer.from(value, 'utf8'));

export function extension(oid: string, value: Uint8Array, critical = false): Uint8Array {
  return derSequence(derObjectIdentifier(oid), ...(critical ? [BOOLEAN_TRUE] : []), derOctetString(value));
}

/** A Name with one RDN per attribute: [OID, string tag, text]. */
export function name(...attributes: [string, number, string][]): Uint8Array {
  return derSequence(
    ...attributes.map(([oid, tag, value]) =>
      derElement(TAG.set, derSequence(derObjectIdentifier(oid), derElement(tag, text(value)))),
    ),
  );
}

export const C = '2.5.4.6';
export const O = '2.5.4.10';
export const CN = '2.5.4.3';
const ID_EC_PUBLIC_KEY = '1.2.840.10045.2.1';
const P256 = '1.2.840.10045.3.1.7';
const ECDSA_WITH_SHA256 = derSequence(derObjectIdentifier('1.2.840.10045.4.3.2'));

export const uri = (value: string) => derElement(0x86, text(value));
export const dnsName = (value: string) => derElement(0x82, text(value));

/** KeyUsage BIT STRING with the given RFC 5280 4.2.1.3 bits set. */
export function keyUsage(...bits: number[]): Uint8Array {
  const octets = new Uint8Array(2);
  for (const bit of bits) octets[bit >> 3] |= 0x80 >> (bit & 7);
  return derBitString(octets[1] === 0 ? octets.subarray(0, 1) : octets);
}

const KEY_ID = Uint8Array.from({ length: 20 }, (_, i) => i + 1);

export const EXTENSIONS = {
  basicConstraints: (cA = false, critical = true) =>
    extension(EXTENSION_ID.basicConstraints, derSequence(...(cA ? [BOOLEAN_TRUE] : [])), critical),
  keyUsage: (bits: number[] = [0], critical = true) =>
    extension(EXTENSION_ID.keyUsage, keyUsage(...bits), critical),
  extKeyUsage: (purposes: string[] = [KEY_PURPOSE_ID.serverAuth], critical = false) =>
    extension(EXTENSION_ID.extKeyUsage, derSequence(...purposes.map(derObjectIdentifier)), critical),
  subjectAltName: (names: string[] = ['api.example.com'], critical = false) =>
    extension(EXTENSION_ID.subjectAltName, derSequence(...names.map(dnsName)), critical),
  subjectKeyIdentifier: (critical = false) =>
    extension(EXTENSION_ID.subjectKeyIdentifier, derOctetString(KEY_ID), critical),
  authorityKeyIdentifier: (critical = false) =>
    extension(EXTENSION_ID.authorityKeyIdentifier, derSequence(derElement(0x80, KEY_ID)), critical),
  crlDistributionPoints: (url = 'http://pki.example.com/crl') =>
    extension(
      EXTENSION_ID.cRLDistributionPoints,
      derSequence(
        derSequence(derElement(contextConstructed(0), derElement(contextConstructed(0), uri(url)))),
      ),
    ),
  authorityInfoAccess: (url = 'http://pki.example.com/ocsp') =>
    extension(
      EXTENSION_ID.authorityInfoAccess,
      derSequence(derSequence(derObjectIdentifier('1.3.6.1.5.5.7.48.1'), uri(url))),
    ),
  custom: (critical = false) =>
    extension(
      '1.3.6.1.4.1.99999.2.1',
      derSequence(derElement(UTF8, text('k')), derElement(UTF8, text('v'))),
      critical,
    ),
};

export interface TbsParts {
  serial: Uint8Array;
  issuer: Uint8Array;
  notBefore: Uint8Array;
  notAfter: Uint8Array;
  subject: Uint8Array;
  keyAlgorithm: string;
  extensions: Uint8Array[];
}

/** A TLS server leaf: serial of 16 octets, 2026 to 2027, CN and SAN api.example.com, http URLs. */
export const VALID_LEAF: TbsParts = {
  serial: Uint8Array.of(0x5a, ...Array.from({ length: 15 }, (_, i) => 0x11 * ((i % 15) + 1))),
  issuer: name([C, PRINTABLE, 'US'], [O, UTF8, 'Acme'], [CN, UTF8, 'Acme Root']),
  notBefore: encodeTimeDer(new Date('2026-01-01T00:00:00Z')),
  notAfter: encodeTimeDer(new Date('2027-01-01T00:00:00Z')),
  subject: name([C, PRINTABLE, 'US'], [O, UTF8, 'Acme'], [CN, UTF8, 'api.example.com']),
  keyAlgorithm: ID_EC_PUBLIC_KEY,
  extensions: [
    EXTENSIONS.basicConstraints(),
    EXTENSIONS.keyUsage(),
    EXTENSIONS.extKeyUsage(),
    EXTENSIONS.subjectAltName(),
    EXTENSIONS.subjectKeyIdentifier(),
    EXTENSIONS.authorityKeyIdentifier(),
    EXTENSIONS.crlDistributionPoints(),
    EXTENSIONS.authorityInfoAccess(),
    EXTENSIONS.custom(),
  ],
};

export function tbsCertificate(parts: Partial<TbsParts> = {}): Uint8Array {
  const p = { ...VALID_LEAF, ...parts };
  const spki = derSequence(
    derSequence(derObjectIdentifier(p.keyAlgorithm), derObjectIdentifier(P256)),
    derBitString(Uint8Array.of(4, ...new Uint8Array(64).fill(7))),
  );
  return derSequence(
    Uint8Array.of(0xa0, 3, TAG.integer, 1, 2),
    derElement(TAG.integer, p.serial),
    ECDSA_WITH_SHA256,
    p.issuer,
    derSequence(p.notBefore, p.notAfter),
    p.subject,
    spki,
    derElement(contextConstructed(3), derSequence(...p.extensions)),
  );
}

/** A UTCTime element with any year's digits, to break the time choice on purpose. */
export function utcTime(yymmddhhmmss: string): Uint8Array {
  return derElement(TAG.utcTime, text(`${yymmddhhmmss}Z`));
}
export function generalizedTime(yyyymmddhhmmss: string): Uint8Array {
  return derElement(TAG.generalizedTime, text(`${yyyymmddhhmmss}Z`));
}

export interface CrlParts {
  version: Uint8Array | undefined;
  issuer: Uint8Array;
  thisUpdate: Uint8Array;
  nextUpdate: Uint8Array | undefined;
  reasonCodes: number[];
  revocationDate: Uint8Array;
  extensions: Uint8Array[];
}

export const CRL_NUMBER = (octets: number[] = [1], critical = false) =>
  extension(EXTENSION_ID.cRLNumber, derElement(TAG.integer, Uint8Array.from(octets)), critical);

export const VALID_CRL: CrlParts = {
  version: Uint8Array.of(TAG.integer, 1, 1),
  issuer: VALID_LEAF.issuer,
  thisUpdate: encodeTimeDer(new Date('2026-11-26T00:00:00Z')),
  nextUpdate: encodeTimeDer(new Date('2026-11-27T00:00:00Z')),
  reasonCodes: [1, 0],
  revocationDate: encodeTimeDer(new Date('2026-11-25T00:00:00Z')),
  extensions: [EXTENSIONS.authorityKeyIdentifier(), CRL_NUMBER()],
};

export function tbsCertList(parts: Partial<CrlParts> = {}): Uint8Array {
  const p = { ...VALID_CRL, ...parts };
  const entries = p.reasonCodes.map((code, index) =>
    derSequence(
      derElement(TAG.integer, Uint8Array.of(0x10 + index)),
      p.revocationDate,
      derSequence(extension(EXTENSION_ID.reasonCode, derEnumerated(code))),
    ),
  );
  return derSequence(
    ...(p.version ? [p.version] : []),
    ECDSA_WITH_SHA256,
    p.issuer,
    p.thisUpdate,
    ...(p.nextUpdate ? [p.nextUpdate] : []),
    ...(entries.length > 0 ? [derSequence(...entries)] : []),
    derElement(contextConstructed(0), derSequence(...p.extensions)),
  );
}

/** An OCSP ResponseData (RFC 6960 4.2.1) with one SingleResponse. */
export function responseData(times: {
  producedAt: Date;
  thisUpdate: Date;
  nextUpdate?: Date;
  unknown?: boolean;
}): Uint8Array {
  const certId = derSequence(
    derSequence(derObjectIdentifier('1.3.14.3.2.26')),
    derOctetString(new Uint8Array(20)),
    derOctetString(new Uint8Array(20)),
    derElement(TAG.integer, Uint8Array.of(1)),
  );
  const single = derSequence(
    certId,
    Uint8Array.of(times.unknown ? 0x82 : 0x80, 0), // good [0] or unknown [2]
    encodeGeneralizedTimeDer(times.thisUpdate),
    ...(times.nextUpdate
      ? [derElement(contextConstructed(0), encodeGeneralizedTimeDer(times.nextUpdate))]
      : []),
  );
  return derSequence(
    derElement(contextConstructed(2), derOctetString(new Uint8Array(20))),
    encodeGeneralizedTimeDer(times.producedAt),
    derSequence(single),
  );
}
