import { domainToASCII, domainToUnicode } from 'node:url';
import { parse as parsePublicSuffix } from 'tldts';

/**
 * subjectAlternativeNames: DNS names in the preferred name syntax (RFC 1034 3.5,
 * RFC 5280 4.2.1.6), a wildcard only as the whole left-most label (`*.example.com`); IP addresses,
 * multi-level or inner wildcards, empty labels, labels over 63 and names over 253 octets refused.
 * Internationalized names are accepted in their A-label (punycode) form only (RFC 5890), and each
 * `xn--` label must round-trip through punycode and UTS #46 processing (node:url). A wildcard
 * directly under a public suffix (`*.com`, `*.co.uk`, `*.github.io`) is refused (CA/B BR 3.2.2.6).
 * Returns why a name is refused, or undefined when it is acceptable.
 */
export function dnsNameProblem(name: string): string | undefined {
  if (/[^\x20-\x7e]/.test(name)) {
    return 'must be ASCII: write internationalized names as A-labels (punycode, e.g. xn--bcher-kva.example)';
  }
  if (name.length === 0) return 'must not be empty';
  if (name.length > 253) return 'must be at most 253 characters';
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(name) || name.includes(':') || /^\[.*\]$/.test(name)) {
    return 'IP addresses are not accepted; use a DNS name';
  }
  if (name.endsWith('.')) return 'must not end with a dot';
  const labels = name.split('.');
  for (const [index, label] of labels.entries()) {
    if (label === '*') {
      if (index !== 0) return 'a wildcard is only allowed as the whole left-most label';
      if (labels.length < 2) return 'a wildcard must be followed by a domain';
      continue;
    }
    if (label.includes('*'))
      return 'a wildcard is only allowed as the whole left-most label (e.g. *.example.com)';
    if (label.length === 0) return 'must not contain empty labels';
    if (label.length > 63) return 'labels must be at most 63 characters';
    if (!/^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?$/.test(label)) {
      return 'labels may hold letters, digits and inner hyphens only';
    }
    if (label.toLowerCase().startsWith('xn--') && !isValidALabel(label.toLowerCase())) {
      return `"${label}" is not a valid A-label (it does not round-trip through punycode, RFC 5891 5.4)`;
    }
  }
  if (labels.filter((l) => l === '*').length > 1) return 'only one wildcard level is allowed';
  if (labels[0] === '*' && isPublicSuffix(labels.slice(1).join('.').toLowerCase())) {
    return 'a wildcard directly under a public suffix would cover names of many owners';
  }
  return undefined;
}

/** An `xn--` label decodes to Unicode that IDNA encodes back to exactly this label (RFC 5891 5.4). */
function isValidALabel(label: string): boolean {
  const unicode = domainToUnicode(label);
  return unicode !== '' && unicode !== label && domainToASCII(unicode) === label;
}

/**
 * On the Public Suffix List, ICANN or private section: a private entry (`github.io`,
 * `s3.amazonaws.com`) also hands out names to many independent owners. A top-level label the list
 * does not know (`corp`, `internal`) is not one: such names are a private CA's usual business.
 */
function isPublicSuffix(domain: string): boolean {
  const { publicSuffix, isIcann, isPrivate } = parsePublicSuffix(domain, { allowPrivateDomains: true });
  return publicSuffix === domain && (isIcann === true || isPrivate === true);
}

// LDH labels, an optional leading `*.`, and a last label that is not all digits (no top-level
// domain is numeric, RFC 3696 2), so `10.0.0.1` is not taken for a host name.
const LABEL = '[a-z0-9]([a-z0-9-]*[a-z0-9])?';
const HOST_NAME_SHAPE = new RegExp(`^(\\*\\.)?(${LABEL}\\.)*(?=[a-z0-9-]*[a-z])${LABEL}$`, 'i');

/**
 * Whether a common name is written like a host name (`api.example.com`, `*.example.com`), valid or
 * not: a server certificate's CN of that shape must then pass the SAN rules and be one of the SANs.
 */
export function looksLikeHostName(name: string): boolean {
  return name.length <= 253 && name.includes('.') && HOST_NAME_SHAPE.test(name);
}

/** A name that would also be a valid SAN entry and looks like a host name (has a dot). */
export function isDnsHostName(name: string): boolean {
  return looksLikeHostName(name) && dnsNameProblem(name) === undefined;
}

// Labels of letters, digits, underscores and inner hyphens, at least two of them: the shape
// openssl takes a common name for a DNS name in (`10.0.0.1` and `svc_a.corp` included).
const TLS_DNS_ID_LABEL = '[A-Za-z0-9_]([A-Za-z0-9_-]*[A-Za-z0-9_])?';
const TLS_DNS_ID = new RegExp(`^${TLS_DNS_ID_LABEL}(\\.${TLS_DNS_ID_LABEL})+$`);

/**
 * Whether a TLS library may read a common name as a DNS name: openssl checks such a CN against
 * its CAs' name constraints (RFC 5280 4.2.1.10) when the certificate has no dNSName SAN, so under
 * a constrained issuing CA it must fit the tenant's policy like a SAN (docs/api.md#issuance-policy).
 */
export function mayBeReadAsDnsName(commonName: string): boolean {
  return commonName.length <= 253 && TLS_DNS_ID.test(commonName);
}
