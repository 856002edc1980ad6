import { createHash } from 'node:crypto';

import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';

/**
 * Certificate extensions shared by the CA, leaf and OCSP-signer profiles (and, for the AKI, CRLs).
 * Each helper returns a ready pkijs `Extension` with the criticality RFC 5280 asks for.
 */

// id-ce arc, RFC 5280 4.2.1.
export const EXTENSION_ID = {
  subjectKeyIdentifier: '2.5.29.14',
  keyUsage: '2.5.29.15',
  basicConstraints: '2.5.29.19',
  authorityKeyIdentifier: '2.5.29.35',
} as const;

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

function extension(extnID: string, critical: boolean, value: asn1js.BaseBlock): pkijs.Extension {
  return new pkijs.Extension({ extnID, critical, extnValue: value.toBER(false) });
}
