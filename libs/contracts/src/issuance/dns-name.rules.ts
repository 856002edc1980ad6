/**
 * Spec 4.1.3 subjectAlternativeNames: DNS names in the preferred name syntax (RFC 1034 3.5,
 * RFC 5280 4.2.1.6), a wildcard only as the whole left-most label (`*.example.com`); IP addresses,
 * multi-level or inner wildcards, empty labels, labels over 63 and names over 253 octets refused.
 * Internationalized names are accepted in their A-label (punycode) form only (RFC 5890).
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
  }
  if (labels.filter((l) => l === '*').length > 1) return 'only one wildcard level is allowed';
  return undefined;
}

/** A name that would also be a valid SAN entry and looks like a host name (has a dot). */
export function isDnsHostName(name: string): boolean {
  return name.includes('.') && !name.startsWith('*') && dnsNameProblem(name) === undefined;
}
