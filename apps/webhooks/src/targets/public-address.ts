import { BlockList, isIP } from 'node:net';

// Loopback, private, link-local, carrier-grade NAT, unspecified, multicast and reserved ranges: a
// webhook must not turn the CA into a probe of its own network (SSRF). The same classification as
// the ACME validator's; to be shared by both from one library.
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
