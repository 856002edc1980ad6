import { IncomingHttpHeaders } from 'node:http';
import { BlockList, isIP } from 'node:net';

/**
 * Who a client is, for the per-client caps of both HTTP surfaces: its address, an IPv4-mapped
 * IPv6 address as the IPv4 one, and an IPv6 client by its /64 (one host is usually handed a whole
 * /64, so counting single addresses would give it 2^64 quotas).
 */
export function clientKey(address: string | undefined): string {
  const ip = plainAddress(address ?? '');
  if (isIP(ip) !== 6) return ip || 'unknown';
  return `${expandIpv6(ip).slice(0, 4).join(':')}::/64`;
}

/** The proxies whose forwarding headers are believed (`TRUSTED_PROXIES`); none by default. */
export class TrustedProxies {
  private readonly list = new BlockList();
  readonly any: boolean;

  constructor(entries: readonly string[]) {
    for (const entry of entries) {
      const [address, prefix] = entry.split('/');
      const type = isIP(address) === 6 ? 'ipv6' : 'ipv4';
      if (prefix === undefined) this.list.addAddress(address, type);
      else this.list.addSubnet(address, Number(prefix), type);
    }
    this.any = entries.length > 0;
  }

  has(address: string | undefined): boolean {
    if (!this.any || !address) return false;
    const ip = plainAddress(address);
    const family = isIP(ip);
    return family !== 0 && this.list.check(ip, family === 6 ? 'ipv6' : 'ipv4');
  }

  /**
   * The client's address: the peer's, unless the peer is a trusted proxy; then the nearest address
   * in the forwarding chain (`Forwarded` of RFC 7239, else `X-Forwarded-For`) that is not itself
   * a trusted proxy, read from the right, since a client can write anything to the left of what
   * the proxies appended. A chain without a usable address leaves the peer's.
   */
  clientAddress(peer: string | undefined, headers: IncomingHttpHeaders): string | undefined {
    if (!this.has(peer)) return peer;
    const chain = forwardedChain(headers);
    for (let i = chain.length - 1; i >= 0; i--) {
      if (isIP(chain[i]) === 0) return peer;
      if (!this.has(chain[i])) return chain[i];
    }
    return chain[0] ?? peer;
  }
}

/** The addresses of `Forwarded: for=` (RFC 7239 4), else of `X-Forwarded-For`, left to right. */
function forwardedChain(headers: IncomingHttpHeaders): string[] {
  const forwarded = headers.forwarded;
  if (forwarded) {
    const chain: string[] = [];
    for (const element of forwarded.split(',')) {
      const match = /(?:^|;)\s*for\s*=\s*("[^"]*"|[^;,\s]*)/i.exec(element);
      if (match) chain.push(nodeAddress(match[1].replace(/^"|"$/g, '')));
    }
    return chain;
  }
  const xff = headers['x-forwarded-for'];
  const list = Array.isArray(xff) ? xff.join(',') : (xff ?? '');
  return list
    .split(',')
    .map((entry) => nodeAddress(entry.trim()))
    .filter(Boolean);
}

/** A forwarded node (`[2001:db8::1]:443`, `192.0.2.1:80`, `unknown`) as a bare address. */
function nodeAddress(node: string): string {
  const bracketed = /^\[([^\]]+)\]/.exec(node);
  if (bracketed) return plainAddress(bracketed[1]);
  const v4WithPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(node);
  return plainAddress(v4WithPort ? v4WithPort[1] : node);
}

function plainAddress(address: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  return (mapped ? mapped[1] : address).toLowerCase();
}

/** The hextets of an IPv6 address with `::` expanded: its first four are its /64. */
function expandIpv6(address: string): string[] {
  const [head, tail = ''] = address.split('::');
  const part = (text: string) => (text ? text.split(':') : []);
  const left = part(head);
  const right = part(tail);
  const missing = 8 - left.length - right.length;
  return [...left, ...Array.from({ length: Math.max(0, missing) }, () => '0'), ...right].map((h) =>
    h.includes('.') ? h : h.padStart(4, '0'),
  );
}
