import { Env, readInt } from './env-readers';

/** Limits of both HTTP surfaces (admin API and PKI port); see docs/operations.md. */
export interface HttpLimits {
  /** Open connections per server; further ones are closed on accept. */
  maxConnections: number;
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
