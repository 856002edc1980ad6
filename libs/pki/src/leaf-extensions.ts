import { createHash } from 'node:crypto';

import * as pkijs from 'pkijs';

import { DerReader, readSingleElement } from './der-reader';

import { derObjectIdentifier, derOctetString, derSequence, TAG } from './der-writer';
import {
  authorityInfoAccessExtension,
  authorityKeyIdentifierExtension,
  basicConstraintsExtension,
  crlDistributionPointsExtension,
  customExtension,
  EXTENSION_ID,
  extendedKeyUsageExtension,
  keyUsageExtension,
  ocspNoCheckExtension,
  subjectAltNameExtension,
  tlsFeatureMustStapleExtension,
} from './extensions';
import type { LeafSubject } from './distinguished-name';
import type { LeafCertificateProfile } from './leaf-certificate.builder';

/** One Extension (RFC 5280 4.1), DER-encoded, with its extnID for the duplicate check. */
export interface EncodedExtension {
  extnID: string;
  der: Uint8Array;
}

// Most of a leaf's extensions are the same for every certificate of a tenant (basicConstraints,
// keyUsage, EKU, AKI, CDP, AIA): encoded once with pkijs and reused as bytes. Keys hold the URLs,
// so the map is bounded and emptied when full.
const MAX_CACHED = 4_096;
const cache = new Map<string, EncodedExtension>();

function cached(key: string, make: () => pkijs.Extension): EncodedExtension {
  let hit = cache.get(key);
  if (!hit) {
    hit = encodeExtension(make());
    if (cache.size >= MAX_CACHED) cache.clear();
    cache.set(key, hit);
  }
  return hit;
}

function encodeExtension(extension: pkijs.Extension): EncodedExtension {
  return { extnID: extension.extnID, der: new Uint8Array(extension.toSchema().toBER(false)) };
}

const SKI_OID_DER = derObjectIdentifier(EXTENSION_ID.subjectKeyIdentifier);

/** RFC 5280 4.2.1.2, not critical: extnValue is the DER of OCTET STRING keyIdentifier. */
function subjectKeyIdentifier(keyId: Uint8Array): EncodedExtension {
  return {
    extnID: EXTENSION_ID.subjectKeyIdentifier,
    der: derSequence(SKI_OID_DER, derOctetString(derOctetString(keyId))),
  };
}

/**
 * RFC 5280 4.2.1.2 method 1: the SHA-1 of the subjectPublicKey BIT STRING's value (without the
 * unused-bits octet), read from a DER SubjectPublicKeyInfo; the same as `keyIdentifier`.
 */
export function keyIdentifierOfSpki(spki: Uint8Array): Uint8Array {
  const info = readSingleElement(spki, 'SubjectPublicKeyInfo', TAG.sequence);
  const reader = new DerReader(spki, info.contentStart, info.end);
  reader.read('SubjectPublicKeyInfo algorithm', TAG.sequence);
  const key = reader.read('SubjectPublicKeyInfo subjectPublicKey', TAG.bitString);
  return new Uint8Array(
    createHash('sha1')
      .update(spki.subarray(key.contentStart + 1, key.end))
      .digest(),
  );
}

/**
 * The leaf's extensions in the order `buildLeafCertificate` documents, as DER. Throws RangeError
 * when one would appear twice (RFC 5280 4.2: at most one instance of an extension).
 */
export function encodeLeafExtensions(
  profile: LeafCertificateProfile,
  subjectKeyId: Uint8Array,
  authorityKeyId: Uint8Array,
): EncodedExtension[] {
  const keyUsages: ('digitalSignature' | 'keyEncipherment')[] = profile.keyEncipherment
    ? ['digitalSignature', 'keyEncipherment']
    : ['digitalSignature'];
  const authorityKeyIdHex = Buffer.from(authorityKeyId).toString('hex');
  const extensions = [
    cached('bc', () => basicConstraintsExtension({ cA: false })),
    cached(`ku:${keyUsages.join(',')}`, () => keyUsageExtension(keyUsages)),
    cached(`eku:${profile.extendedKeyUsages.join(',')}`, () =>
      extendedKeyUsageExtension(profile.extendedKeyUsages),
    ),
    subjectKeyIdentifier(subjectKeyId),
    cached(`aki:${authorityKeyIdHex}`, () => authorityKeyIdentifierExtension(authorityKeyId)),
  ];
  if (profile.dnsNames?.length) {
    // RFC 5280 4.2.1.6: critical when the subject is empty, non-critical otherwise.
    const critical = isEmptySubject(profile.subject);
    extensions.push(encodeExtension(subjectAltNameExtension(profile.dnsNames, critical)));
  }
  const crlUrl = profile.crlDistributionPointUrl;
  if (crlUrl !== undefined)
    extensions.push(cached(`cdp:${crlUrl}`, () => crlDistributionPointsExtension(crlUrl)));
  const { ocspUrl, caIssuersUrl } = profile;
  if (ocspUrl !== undefined || caIssuersUrl !== undefined) {
    extensions.push(
      cached(`aia:${ocspUrl ?? ''}\n${caIssuersUrl ?? ''}`, () =>
        authorityInfoAccessExtension({ ocsp: ocspUrl, caIssuers: caIssuersUrl }),
      ),
    );
  }
  if (profile.mustStaple) extensions.push(cached('must-staple', tlsFeatureMustStapleExtension));
  if (profile.ocspNoCheck) extensions.push(cached('ocsp-nocheck', ocspNoCheckExtension));
  for (const { oid, value } of profile.customExtensions ?? []) {
    extensions.push(encodeExtension(customExtension(oid, value)));
  }

  const seen = new Set<string>();
  for (const { extnID } of extensions) {
    if (seen.has(extnID)) throw new RangeError(`Extension ${extnID} would appear twice`);
    seen.add(extnID);
  }
  return extensions;
}

/** No attribute at all: the Name is an empty SEQUENCE (RFC 5280 4.1.2.6). */
export const isEmptySubject = (subject: LeafSubject): boolean =>
  Object.values(subject).every((value) => value === undefined);
