import { isIP } from 'node:net';

import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';

import { contextConstructed, contextPrimitive, derElement, derSequence } from './der-writer';
import { EXTENSION_ID, GENERAL_NAME_TYPE } from './extensions';

/**
 * The name constraints of a CA certificate (RFC 5280 4.2.1.10), by name form. Only the forms this
 * CA writes: dNSName subtrees and excluded iPAddress ranges. A form with no entry is not
 * constrained (a constraint on one name form does not restrict the others).
 */
export interface NameConstraints {
  /** dNSName subtrees: `example.com` matches example.com and every name under it. */
  permittedDnsNames: string[];
  /** dNSName subtrees excluded; `''` (zero length) excludes every DNS name (CA/B BR 7.1.2.5.2). */
  excludedDnsNames: string[];
  /** iPAddress ranges excluded, in CIDR form: `0.0.0.0/0` and `::/0` exclude every address. */
  excludedIpRanges: string[];
}

/** What `readNameConstraints` finds in a certificate: the constraints and their criticality. */
export interface NameConstraintsInfo extends NameConstraints {
  critical: boolean;
}

/**
 * RFC 5280 4.2.1.10 nameConstraints, critical ("Conforming CAs MUST mark this extension as
 * critical"); GeneralSubtree minimum 0 is the DEFAULT and maximum is absent (both as the RFC
 * requires), so each subtree is SEQUENCE { base }. Throws RangeError when there is no subtree at
 * all (the RFC forbids an empty NameConstraints) or an entry is not a DNS name or CIDR range.
 */
export function nameConstraintsExtension(constraints: NameConstraints): pkijs.Extension {
  const permitted = constraints.permittedDnsNames.map(dnsSubtree);
  const excluded = [
    ...constraints.excludedDnsNames.map(dnsSubtree),
    ...constraints.excludedIpRanges.map(ipSubtree),
  ];
  if (permitted.length === 0 && excluded.length === 0) {
    throw new RangeError('nameConstraints needs at least one permitted or excluded subtree');
  }
  const value = derSequence(
    ...(permitted.length > 0 ? [derElement(contextConstructed(0), ...permitted)] : []),
    ...(excluded.length > 0 ? [derElement(contextConstructed(1), ...excluded)] : []),
  );
  return new pkijs.Extension({
    extnID: EXTENSION_ID.nameConstraints,
    critical: true,
    extnValue: value.slice().buffer,
  });
}

/** The nameConstraints of a DER certificate, or null when it has none. */
export function readNameConstraints(certificateDer: Uint8Array): NameConstraintsInfo | null {
  const certificate = pkijs.Certificate.fromBER(certificateDer);
  const extension = certificate.extensions?.find(({ extnID }) => extnID === EXTENSION_ID.nameConstraints);
  if (!extension) return null;
  const value = new pkijs.NameConstraints({
    schema: asn1js.fromBER(extension.extnValue.valueBlock.valueHexView).result,
  });
  const info: NameConstraintsInfo = {
    critical: extension.critical,
    permittedDnsNames: [],
    excludedDnsNames: [],
    excludedIpRanges: [],
  };
  for (const { base } of value.permittedSubtrees ?? []) {
    if (base.type === GENERAL_NAME_TYPE.dNSName) info.permittedDnsNames.push(base.value as string);
  }
  for (const { base } of value.excludedSubtrees ?? []) {
    if (base.type === GENERAL_NAME_TYPE.dNSName) info.excludedDnsNames.push(base.value as string);
    if (base.type === GENERAL_NAME_TYPE.iPAddress) {
      info.excludedIpRanges.push(
        cidrOf(new Uint8Array((base.value as asn1js.OctetString).valueBlock.valueHexView)),
      );
    }
  }
  return info;
}

// A constraint is a name without a wildcard (RFC 5280 4.2.1.10), or '' for every DNS name.
const DNS_CONSTRAINT =
  /^([A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?(\.[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)*)?$/;

function dnsSubtree(name: string): Uint8Array {
  if (name.length > 253 || !DNS_CONSTRAINT.test(name)) {
    throw new RangeError(`Not a DNS name constraint: "${name}"`);
  }
  return derSequence(derElement(contextPrimitive(GENERAL_NAME_TYPE.dNSName), Buffer.from(name, 'ascii')));
}

/** RFC 5280 4.2.1.10: an iPAddress constraint is the address followed by the mask, 8 or 32 octets. */
function ipSubtree(cidr: string): Uint8Array {
  const [address, prefixText] = cidr.split('/');
  const family = isIP(address ?? '');
  const bits = family === 4 ? 32 : 128;
  const prefix = Number(prefixText);
  // IPv6 with an embedded IPv4 part (`::ffff:1.2.3.4`) is not needed here and not parsed.
  const embedded = family === 6 && address.includes('.');
  if (family === 0 || embedded || !/^\d{1,3}$/.test(prefixText ?? '') || prefix > bits) {
    throw new RangeError(`Not a CIDR range: "${cidr}"`);
  }
  const octets = family === 4 ? ipv4Octets(address) : ipv6Octets(address);
  const mask = new Uint8Array(octets.length);
  for (let bit = 0; bit < prefix; bit++) mask[bit >> 3] |= 0x80 >> (bit & 7);
  // The address with host bits cleared, as the constraint names a range, not a host.
  const network = octets.map((octet, i) => octet & mask[i]);
  return derSequence(derElement(contextPrimitive(GENERAL_NAME_TYPE.iPAddress), network, mask));
}

function ipv4Octets(address: string): Uint8Array {
  return Uint8Array.from(address.split('.').map(Number));
}

function ipv6Octets(address: string): Uint8Array {
  const [head, tail = ''] = address.includes('::') ? address.split('::') : [address, undefined];
  const groups = (part: string | undefined) => (part ? part.split(':') : []);
  const left = groups(head);
  const right = groups(tail);
  const all = address.includes('::')
    ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right]
    : left;
  const octets = new Uint8Array(16);
  all.forEach((group, i) => {
    const value = parseInt(group, 16);
    octets[i * 2] = value >> 8;
    octets[i * 2 + 1] = value & 0xff;
  });
  return octets;
}

function cidrOf(addressAndMask: Uint8Array): string {
  const half = addressAndMask.length / 2;
  const address = addressAndMask.subarray(0, half);
  let prefix = 0;
  for (const octet of addressAndMask.subarray(half)) {
    for (let bit = 7; bit >= 0 && (octet >> bit) & 1; bit--) prefix++;
  }
  if (half === 4) return `${address.join('.')}/${prefix}`;
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((address[i] << 8) | address[i + 1]).toString(16));
  return `${groups.join(':').replace(/(^|:)0(:0)+(:|$)/, '::')}/${prefix}`;
}
