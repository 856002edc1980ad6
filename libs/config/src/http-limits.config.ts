import { isIP } from 'node:net';
import { ConfigError } from './config-error';
import { Env, readInt, readString } from './env-readers';

/** Limits of both HTTP surfaces (admin API and PKI port); see docs/operations.md. */
export interface HttpLimits {
  /** Open connections per server; near it, idle kept-alive ones are reclaimed, then new ones closed. */
  maxConnections: number;
  /** Open connections per client address (an IPv6 client by its /64); more are closed on accept. */
  maxConnectionsPerClient: number;
  /** Requests per second per client address, in bursts of up to one second's worth; 0: no cap. */
  requestsPerClientPerSecond: number;
  /**
   * Addresses or CIDR blocks of the proxies (load balancer, CDN) whose `Forwarded` or
   * `X-Forwarded-For` names the client; empty: the peer address is the client.
   */
  trustedProxies: string[];
  /** Seconds a client has to send the complete request headers (slowloris). */
  headersTimeoutSeconds: number;
  /** Seconds a client has to send the complete request, body included. */
  requestTimeoutSeconds: number;
  /** Seconds an idle kept-alive connection stays open after an answer. */
  keepAliveTimeoutSeconds: number;
}

export function readHttpLimits(env: Env): HttpLimits {
  const headersTimeoutSeconds = readInt(env, 'HTTP_HEADERS_TIMEOUT', 10, 1, 3600);
  return {
    maxConnections: readInt(env, 'HTTP_MAX_CONNECTIONS', 1024, 1, 1_000_000),
    maxConnectionsPerClient: readInt(env, 'HTTP_MAX_CONNECTIONS_PER_CLIENT', 64, 1, 1_000_000),
    requestsPerClientPerSecond: readInt(env, 'HTTP_CLIENT_REQUESTS_PER_SECOND', 1000, 0, 10_000_000),
    trustedProxies: readTrustedProxies(env),
    headersTimeoutSeconds,
    // Node requires requestTimeout >= headersTimeout; the default keeps that for any headers timeout.
    requestTimeoutSeconds: readInt(
      env,
      'HTTP_REQUEST_TIMEOUT',
      Math.max(30, headersTimeoutSeconds),
      headersTimeoutSeconds,
      3600,
    ),
    keepAliveTimeoutSeconds: readInt(env, 'HTTP_KEEPALIVE_TIMEOUT', 5, 1, 3600),
  };
}

/** `TRUSTED_PROXIES`: addresses or CIDR blocks, separated by commas or spaces. */
function readTrustedProxies(env: Env): string[] {
  const entries = (readString(env, 'TRUSTED_PROXIES') ?? '').split(/[\s,]+/).filter(Boolean);
  for (const entry of entries) {
    const [address, prefix, ...rest] = entry.split('/');
    const family = isIP(address);
    const bits = family === 6 ? 128 : 32;
    const prefixOk = prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= bits);
    if (family === 0 || !prefixOk || rest.length > 0)
      throw new ConfigError('TRUSTED_PROXIES', `must list IP addresses or CIDR blocks, got "${entry}"`);
  }
  return entries;
}
