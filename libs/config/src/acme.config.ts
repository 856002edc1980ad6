import { isIP } from 'node:net';
import { ConfigError } from './config-error';
import { Env, readDurationSeconds, readInt, readPort, readString } from './env-readers';

/** The ACME validator's settings (docs/operations.md, ACME). */
export interface AcmeSettings {
  /** ACME_HTTP01_PORT: where http-01 challenges are fetched (RFC 8555 8.3 says 80). */
  http01Port: number;
  /** ACME_TLSALPN01_PORT: where tls-alpn-01 challenges are checked (RFC 8737 3 says 443). */
  tlsAlpn01Port: number;
  /** ACME_RESOLVE: `name=ip` overrides consulted before DNS; a `*.name` entry covers subdomains. */
  resolve: ReadonlyMap<string, string>;
  /** ACME_ALLOW_PRIVATE_TARGETS: let the validator connect to loopback and private addresses. */
  allowPrivateTargets: boolean;
  /** ACME_DNS_RESOLVER: `ip:port` servers dns-01 asks for TXT records; empty: the system resolvers. */
  dnsResolvers: string[];
  /** ACME_RATE_LIMIT_*: requests per minute per tenant, per tenant and client address, per account; new orders per account. */
  rateLimits: { perTenant: number; perSource: number; perAccount: number; newOrdersPerAccount: number };
  /** ACME_NONCE_LIFETIME: how long a replay nonce is accepted and kept (RFC 8555 6.5 leaves it to the server), ms. */
  nonceLifetimeMs: number;
}

export function readAcmeSettings(env: Env): AcmeSettings {
  return {
    http01Port: readPort(env, 'ACME_HTTP01_PORT', 80),
    tlsAlpn01Port: readPort(env, 'ACME_TLSALPN01_PORT', 443),
    resolve: parseResolveList(readString(env, 'ACME_RESOLVE') ?? ''),
    allowPrivateTargets: readBoolean(env, 'ACME_ALLOW_PRIVATE_TARGETS', false),
    dnsResolvers: parseDnsResolvers(readString(env, 'ACME_DNS_RESOLVER') ?? ''),
    rateLimits: {
      perTenant: readInt(env, 'ACME_RATE_LIMIT_PER_TENANT', 1200, 1, 10_000_000),
      perSource: readInt(env, 'ACME_RATE_LIMIT_PER_SOURCE', 300, 1, 10_000_000),
      perAccount: readInt(env, 'ACME_RATE_LIMIT_PER_ACCOUNT', 300, 1, 10_000_000),
      newOrdersPerAccount: readInt(env, 'ACME_NEW_ORDERS_PER_ACCOUNT', 60, 1, 10_000_000),
    },
    nonceLifetimeMs: readDurationSeconds(env, 'ACME_NONCE_LIFETIME', 3600, 60, 86_400) * 1000,
  };
}

const NAME = /^(\*\.)?([a-z0-9]([a-z0-9-]*[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]*[a-z0-9])?$/;
const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/** `a.example=127.0.0.1,*.b.example=::1`: names lower-cased; an invalid entry names itself. */
export function parseResolveList(raw: string): ReadonlyMap<string, string> {
  const entries = new Map<string, string>();
  for (const item of raw.split(',').map((s) => s.trim())) {
    if (item === '') continue;
    const [name, ip, extra] = item.split('=').map((s) => s.trim());
    if (extra !== undefined || !name || !ip || !NAME.test(name.toLowerCase())) {
      throw new ConfigError('ACME_RESOLVE', `entries are name=ip, got "${item}"`);
    }
    if (!IPV4.test(ip) && !/^[0-9a-f:]+$/i.test(ip)) {
      throw new ConfigError('ACME_RESOLVE', `"${ip}" is not an IP address (in "${item}")`);
    }
    entries.set(name.toLowerCase(), ip);
  }
  return entries;
}

/**
 * `127.0.0.1:5353,[::1]:53,10.0.0.2`: IP addresses (the resolver does not look names up to find its
 * servers), each with an optional port (53); written as node:dns `setServers` takes them.
 */
export function parseDnsResolvers(raw: string): string[] {
  const servers: string[] = [];
  for (const item of raw.split(',').map((s) => s.trim())) {
    if (item === '') continue;
    // A bare IPv6 address has colons of its own; with a port it is bracketed.
    const match = isIP(item) === 6 ? [item, item] : /^\[?([^\]]+?)\]?(?::(\d{1,5}))?$/.exec(item);
    const ip = match?.[1] ?? '';
    const family = isIP(ip);
    const port = match?.[2] === undefined ? 53 : Number(match[2]);
    const bracketsRight = family === 6 ? item.startsWith('[') === item.includes(']') : !item.includes('[');
    if (family === 0 || !bracketsRight || port < 1 || port > 65535) {
      throw new ConfigError('ACME_DNS_RESOLVER', `entries are ip or ip:port ([ipv6]:port), got "${item}"`);
    }
    servers.push(family === 6 ? `[${ip}]:${port}` : `${ip}:${port}`);
  }
  return servers;
}

function readBoolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = readString(env, name);
  if (raw === undefined) return fallback;
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  throw new ConfigError(name, `must be true or false, got "${raw}"`);
}
