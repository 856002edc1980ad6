import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';

import { decodeCertificate } from './certificate.parser';
import { EXTENSION_ID, keyIdentifier } from './extensions';

/** What issuing under a CA certificate needs from it, decoded once. */
export interface IssuerCertificate {
  /** Read-only: shared by every certificate built under this issuer. */
  certificate: pkijs.Certificate;
  /** The keyIdentifier for the AKI of what it signs (RFC 5280 4.2.1.1). */
  keyIdentifier: Uint8Array;
}

// Decoding a certificate costs about as much as signing one, and every leaf of a tenant is issued
// under the same CA certificate; the most recently used ones are kept, keyed by their DER.
const CACHE_SIZE = 64;
const cache = new Map<string, IssuerCertificate>();

/**
 * The issuer's certificate, checked to be a CA: RFC 5280 6.1.4 (k) lets only a certificate with
 * basicConstraints cA TRUE issue certificates. The AKI keyIdentifier is the issuer's SKI, or, for
 * an issuer without one, computed from its key (method 1). Throws `PkiFormatError` for bytes that
 * are not a certificate and RangeError for a certificate that is not a CA.
 */
export function decodeIssuerCertificate(der: Uint8Array): IssuerCertificate {
  const key = Buffer.from(der.buffer, der.byteOffset, der.byteLength).toString('base64');
  const cached = cache.get(key);
  if (cached) {
    cache.delete(key); // re-inserted below as the most recently used
    cache.set(key, cached);
    return cached;
  }
  const certificate = decodeCertificate(der);
  const extensions = certificate.extensions ?? [];
  const basicConstraints = extensions.find(
    ({ extnID }) => extnID === EXTENSION_ID.basicConstraints,
  )?.parsedValue;
  if (!(basicConstraints instanceof pkijs.BasicConstraints && basicConstraints.cA)) {
    throw new RangeError('The issuer certificate is not a CA certificate (basicConstraints cA)');
  }
  const ski = extensions.find(({ extnID }) => extnID === EXTENSION_ID.subjectKeyIdentifier)?.parsedValue;
  const issuer: IssuerCertificate = {
    certificate,
    keyIdentifier:
      ski instanceof asn1js.OctetString
        ? new Uint8Array(ski.valueBlock.valueHexView)
        : keyIdentifier(certificate.subjectPublicKeyInfo),
  };
  cache.set(key, issuer);
  if (cache.size > CACHE_SIZE) {
    const [leastRecentlyUsed] = cache.keys();
    cache.delete(leastRecentlyUsed);
  }
  return issuer;
}
