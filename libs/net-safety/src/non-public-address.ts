import { BlockList, isIP } from 'node:net';

// Addresses that neither the ACME validator (unless ACME_ALLOW_PRIVATE_TARGETS) nor a webhook
// delivery (unless WEBHOOK_ALLOW_PRIVATE_TARGETS) connects to: the CA must not be turned into a
// probe of its own network (SSRF). Kept here, each range with its RFC, rather than taken from a
// library: none classifies all of them (IPv4-compatible, site-local, discard, NAT64).
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

/**
 * Whether `ip` is anything but a public unicast address: private, loopback, link-local, reserved,
 * multicast, an address that tunnels to one of those (IPv4-mapped or -compatible, NAT64, 6to4,
 * Teredo), or not an IP address at all.
 */
export function isNonPublicAddress(ip: string): boolean {
  const family = isIP(ip);
  if (family === 0) return true;
  // An IPv4-mapped IPv6 address (::ffff:a.b.c.d, RFC 4291 2.5.5.2) reaches the IPv4 address it maps.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return isNonPublicAddress(mapped[1]);
  return NON_PUBLIC.check(ip, family === 4 ? 'ipv4' : 'ipv6');
}
