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

// Loopback, private, link-local, carrier-grade NAT, unspecified, multicast and reserved ranges:
// the validator must not be turned into a probe of the CA's own network (SSRF).
const NON_PUBLIC = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 3],
] as const)
  NON_PUBLIC.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  NON_PUBLIC.addSubnet(net, prefix, 'ipv6');

export function isNonPublicAddress(ip: string): boolean {
  const family = isIP(ip);
  if (family === 0) return true;
  // An IPv4-mapped IPv6 address (::ffff:a.b.c.d) reaches the IPv4 address it maps.
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
