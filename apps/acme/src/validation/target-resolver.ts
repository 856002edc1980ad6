import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/** Where a validation connects to, and what refused it. */
export class TargetRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TargetRefused';
  }
}

export interface TargetResolverOptions {
  /** ACME_RESOLVE: `name` or `*.name` → IP, consulted before DNS. */
  overrides: ReadonlyMap<string, string>;
  /** ACME_ALLOW_PRIVATE_TARGETS. */
  allowPrivateTargets: boolean;
  /** DNS, replaceable in tests. */
  dnsLookup?: (name: string) => Promise<string[]>;
}

// Addresses the validator never connects to unless ACME_ALLOW_PRIVATE_TARGETS: it must not be
// turned into a probe of the CA's own network (SSRF). Kept here, each range with its RFC, rather
// than taken from a library: none classifies all of them (IPv4-compatible, site-local, discard).
const NON_PUBLIC = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this network" (RFC 791, RFC 6890)
  ['10.0.0.0', 8], // private (RFC 1918)
  ['100.64.0.0', 10], // carrier-grade NAT (RFC 6598)
  ['127.0.0.0', 8], // loopback (RFC 1122)
  ['169.254.0.0', 16], // link-local, cloud metadata (RFC 3927)
  ['172.16.0.0', 12], // private (RFC 1918)
  ['192.0.0.0', 24], // IETF protocol assignments (RFC 6890)
  ['192.168.0.0', 16], // private (RFC 1918)
  ['198.18.0.0', 15], // benchmarking (RFC 2544)
  ['224.0.0.0', 3], // multicast (RFC 5771), reserved (RFC 1112) and broadcast
] as const)
  NON_PUBLIC.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  // IPv4-compatible (RFC 4291 2.5.5.1, deprecated): ::a.b.c.d reaches a.b.c.d on some stacks;
  // holds the unspecified (::) and loopback (::1) addresses too.
  ['::', 96],
  ['64:ff9b::', 96], // NAT64 well-known prefix (RFC 6052): a NAT64 gateway reaches the IPv4 inside
  ['64:ff9b:1::', 48], // NAT64 local-use prefix (RFC 8215)
  ['100::', 64], // discard-only (RFC 6666)
  ['2001::', 32], // Teredo (RFC 4380): tunnels to an IPv4 address
  ['2002::', 16], // 6to4 (RFC 3056): the IPv4 address is in the prefix
  ['fc00::', 7], // unique local (RFC 4193)
  ['fe80::', 10], // link-local (RFC 4291)
  ['fec0::', 10], // site-local (RFC 3879, deprecated but still routed by some)
  ['ff00::', 8], // multicast (RFC 4291)
] as const)
  NON_PUBLIC.addSubnet(net, prefix, 'ipv6');

export function isNonPublicAddress(ip: string): boolean {
  const family = isIP(ip);
  if (family === 0) return true;
  // An IPv4-mapped IPv6 address (::ffff:a.b.c.d, RFC 4291 2.5.5.2) reaches the IPv4 address it maps.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return isNonPublicAddress(mapped[1]);
  return NON_PUBLIC.check(ip, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * Turns an identifier into the address a challenge is checked at: the ACME_RESOLVE override
 * (exact name first, then `*.parent`), else DNS; non-public addresses are refused unless the
 * deployment allows them.
 */
export class TargetResolver {
  private readonly dnsLookup: (name: string) => Promise<string[]>;

  constructor(private readonly options: TargetResolverOptions) {
    this.dnsLookup =
      options.dnsLookup ??
      (async (name) => (await lookup(name, { all: true, verbatim: true })).map((a) => a.address));
  }

  /** The override for a name, if any. */
  override(name: string): string | undefined {
    const lower = name.toLowerCase();
    const exact = this.options.overrides.get(lower);
    if (exact) return exact;
    const labels = lower.split('.');
    for (let i = 1; i < labels.length; i++) {
      const wildcard = this.options.overrides.get(`*.${labels.slice(i).join('.')}`);
      if (wildcard) return wildcard;
    }
    return undefined;
  }

  async resolve(name: string): Promise<string> {
    let addresses: string[];
    const override = this.override(name);
    if (override) addresses = [override];
    else {
      try {
        addresses = await this.dnsLookup(name);
      } catch {
        throw new TargetRefused(`${name} does not resolve`);
      }
    }
    const allowed = addresses.filter((ip) => this.options.allowPrivateTargets || !isNonPublicAddress(ip));
    if (allowed.length === 0) {
      throw new TargetRefused(
        addresses.length === 0
          ? `${name} has no address`
          : `${name} resolves to a private or reserved address, which this deployment does not validate against`,
      );
    }
    return allowed[0];
  }
}
