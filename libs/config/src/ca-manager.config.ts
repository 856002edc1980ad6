import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { AcmeSettings, readAcmeSettings } from './acme.config';
import { WebhookSettings, readWebhookSettings } from './webhooks.config';
import { ConfigError } from './config-error';
import { HttpLimits, readHttpLimits } from './http-limits.config';
import { Pkcs11Settings, readPkcs11Settings } from './pkcs11.config';
import {
  Env,
  readBaseUrl,
  readDurationSeconds,
  readEnum,
  readInt,
  readPort,
  readString,
  readUrl,
} from './env-readers';

/**
 * KEY_ALGORITHM: the key of every CA made without an explicit choice (docs/operations.md#configuration,
 * docs/api.md#key-algorithms). The names of libs/contracts' KeyAlgorithm, which this library does not import.
 */
export const DEPLOYMENT_KEY_ALGORITHMS = ['P-256', 'P-384', 'RSA-2048', 'RSA-3072', 'RSA-4096'] as const;
export type DeploymentKeyAlgorithm = (typeof DEPLOYMENT_KEY_ALGORITHMS)[number];

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
/** LOG_FORMAT: `auto` prints readable lines when standard output is a terminal, JSON otherwise. */
export const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** Every setting of docs/api.md#configuration, validated once at start. */
export interface CaManagerConfig {
  host: string;
  gatewayPort: number;
  pkiPort: number;
  /** Health port of services without an HTTP surface of their own (issuance, revocation). */
  healthPort?: number;
  pkiPublicUrl: string;
  gatewayPublicUrl: string;
  dataDir: string;
  databaseUrl?: string;
  natsUrl?: string;
  jwt: {
    publicKeyPem?: string;
    jwksUri?: string;
    issuer?: string;
    audience?: string;
    /** JWT_MAX_TOKEN_LIFETIME: longest accepted exp - iat (or exp - now without iat), seconds. */
    maxLifetimeSeconds: number;
    /** JWT_CLOCK_SKEW: tolerance on exp, nbf and iat, seconds. */
    clockSkewSeconds: number;
  };
  /** AUTH_FAILURE_LIMIT_PER_MINUTE: failed authentications per source address and minute. */
  authFailureLimitPerMinute: number;
  http: HttpLimits;
  defaultCertificateLimit: number;
  rateLimitPerMinute: number;
  errorCatalogUrl: string;
  keyCustody: 'local' | 'pkcs11';
  /** KEY_ALGORITHM: the key algorithm of CAs created without one (and, by family, of their leaves). */
  keyAlgorithm: DeploymentKeyAlgorithm;
  caKek?: string;
  pkcs11: Pkcs11Settings;
  logLevel: LogLevel;
  logFormat: LogFormat;
  /** EVENT_RETENTION_DAYS: how long published events, inbox entries and stream messages are kept, ms (docs/operations.md, Retention). */
  eventRetentionMs: number;
  /** BLOB_TTL: how long a hand-over blob (a CRL for the responder) is kept at most, ms. */
  blobTtlMs: number;
  /** DOWNLOAD_LINK_TTL: how long a download link answers and its payload is kept, ms. */
  downloadLinkTtlMs: number;
  /** Failed handlings of an event before its consumer sets it aside (docs/operations.md, Dead letters). */
  eventMaxAttempts: number;
  /** Embedded mode: no DATABASE_URL (PGlite and development keys under DATA_DIR). */
  embedded: boolean;
  /** The OCSP responder's answers and their bounds (docs/ocsp.md). */
  ocsp: OcspSettings;
  /** When set, `/metrics` on every port requires it as a bearer token. */
  metricsToken?: string;
  /** The ACME validator (docs/operations.md, ACME). */
  acme: AcmeSettings;
  /** Outgoing webhooks (docs/operations.md#webhooks). */
  webhooks: WebhookSettings;
  /** The operator console (docs/console.md#sign-in). */
  console: ConsoleSettings;
}

export interface ConsoleSettings {
  /** CONSOLE_OIDC_ISSUER and CONSOLE_OIDC_CLIENT_ID: sign-in by OIDC authorization code with PKCE (both or neither). */
  oidc?: { issuer: string; clientId: string };
}

function readConsoleSettings(env: Env): ConsoleSettings {
  const issuer = readString(env, 'CONSOLE_OIDC_ISSUER') ? readBaseUrl(env, 'CONSOLE_OIDC_ISSUER', '') : '';
  const clientId = readString(env, 'CONSOLE_OIDC_CLIENT_ID');
  if (Boolean(issuer) !== Boolean(clientId))
    throw new ConfigError(
      issuer ? 'CONSOLE_OIDC_CLIENT_ID' : 'CONSOLE_OIDC_ISSUER',
      'must be set together with ' + (issuer ? 'CONSOLE_OIDC_ISSUER' : 'CONSOLE_OIDC_CLIENT_ID'),
    );
  return issuer && clientId ? { oidc: { issuer, clientId } } : {};
}

export interface OcspSettings {
  /** OCSP_VALIDITY: nextUpdate - thisUpdate of answers, in seconds. */
  validitySeconds: number;
  /** OCSP_MAX_CERTIDS: CertIDs one request may carry. */
  maxCertIds: number;
  /** OCSP_CACHE_MAX_BYTES: bound of the signed-answer cache. */
  cacheMaxBytes: number;
  /** OCSP_FAST_FRONT: whether simple OCSP requests are answered before Node's HTTP server (docs/adr/0008-ocsp-fast-front.md). */
  fastFront: boolean;
  /**
   * OCSP_RESPONDER_WORKERS: responder processes `nx serve ocsp-responder` forks (node:cluster),
   * a number or `auto` (one per CPU); 1 runs no cluster (docs/operations.md#scaling-the-responder).
   */
  workers: number | 'auto';
}

export function loadConfig(env: Env = process.env): CaManagerConfig {
  const databaseUrl = readUrl(env, 'DATABASE_URL', ['postgres:', 'postgresql:']);
  const natsUrl = readUrl(env, 'NATS_URL', ['nats:', 'tls:', 'ws:', 'wss:']);
  const keyCustody = readEnum(env, 'KEY_CUSTODY', ['local', 'pkcs11'] as const, 'local');
  const pkcs11 = readPkcs11Settings(env, keyCustody);
  const healthPort =
    readString(env, 'HEALTH_PORT') === undefined ? undefined : readPort(env, 'HEALTH_PORT', 0);
  return {
    host: readString(env, 'HOST', '127.0.0.1')!,
    gatewayPort: readPort(env, 'GATEWAY_PORT', 3000),
    pkiPort: readPort(env, 'PKI_PORT', 3001),
    healthPort,
    pkiPublicUrl: readBaseUrl(env, 'PKI_PUBLIC_URL', 'http://127.0.0.1:3001'),
    gatewayPublicUrl: readBaseUrl(env, 'GATEWAY_PUBLIC_URL', 'http://127.0.0.1:3000'),
    dataDir: resolve(readString(env, 'DATA_DIR', './.data')!),
    databaseUrl,
    natsUrl,
    jwt: {
      publicKeyPem: readJwtPublicKey(env),
      jwksUri: readUrl(env, 'JWT_JWKS_URI', ['http:', 'https:']),
      issuer: readString(env, 'JWT_ISSUER'),
      audience: readString(env, 'JWT_AUDIENCE'),
      maxLifetimeSeconds: readInt(env, 'JWT_MAX_TOKEN_LIFETIME', 24 * 3600, 60, 366 * 24 * 3600),
      clockSkewSeconds: readInt(env, 'JWT_CLOCK_SKEW', 60, 0, 3600),
    },
    authFailureLimitPerMinute: readInt(env, 'AUTH_FAILURE_LIMIT_PER_MINUTE', 60, 1, 10_000_000),
    http: readHttpLimits(env),
    defaultCertificateLimit: readInt(env, 'DEFAULT_CERTIFICATE_LIMIT', 1000, 0, 100_000_000),
    rateLimitPerMinute: readInt(env, 'RATE_LIMIT_PER_MINUTE', 600, 1, 10_000_000),
    errorCatalogUrl: readBaseUrl(env, 'ERROR_CATALOG_URL', 'https://errors.ca-manager.dev'),
    keyCustody,
    keyAlgorithm: readEnum(env, 'KEY_ALGORITHM', DEPLOYMENT_KEY_ALGORITHMS, 'P-256'),
    caKek: readString(env, 'CA_KEK'),
    pkcs11,
    logLevel: readEnum(env, 'LOG_LEVEL', LOG_LEVELS, 'info'),
    logFormat: readEnum(env, 'LOG_FORMAT', LOG_FORMATS, 'auto'),
    eventRetentionMs: readEventRetentionMs(env),
    blobTtlMs: readDurationSeconds(env, 'BLOB_TTL', 24 * 3600, 60, 30 * 86_400) * 1000,
    downloadLinkTtlMs: readDurationSeconds(env, 'DOWNLOAD_LINK_TTL', 3600, 60, 7 * 86_400) * 1000,
    eventMaxAttempts: readInt(env, 'EVENT_MAX_ATTEMPTS', 5, 1, 1000),
    embedded: databaseUrl === undefined,
    ocsp: readOcspSettings(env),
    metricsToken: readString(env, 'METRICS_TOKEN'),
    acme: readAcmeSettings(env),
    webhooks: readWebhookSettings(env),
    console: readConsoleSettings(env),
  };
}

/**
 * EVENT_RETENTION_DAYS: whole days (`7`, the default), or a duration with a unit (`2m`, `12h`) for
 * short test and benchmark runs; at least a minute (docs/operations.md, Retention).
 */
function readEventRetentionMs(env: Env): number {
  const raw = readString(env, 'EVENT_RETENTION_DAYS');
  if (raw !== undefined && /^\d+$/.test(raw))
    return readInt(env, 'EVENT_RETENTION_DAYS', 7, 1, 3650) * 86_400_000;
  return readDurationSeconds(env, 'EVENT_RETENTION_DAYS', 7 * 86_400, 60, 3650 * 86_400) * 1000;
}

/** More responder processes than this on one host only adds memory (each holds its own caches). */
const MAX_RESPONDER_WORKERS = 64;

/** Defaults: 8 hours (CA/Browser Forum BR 4.9.10 allows 8 hours to 10 days), 64 CertIDs, 64 MiB. */
function readOcspSettings(env: Env): OcspSettings {
  return {
    validitySeconds: readDurationSeconds(env, 'OCSP_VALIDITY', 8 * 3600, 60, 10 * 86_400),
    maxCertIds: readInt(env, 'OCSP_MAX_CERTIDS', 64, 1, 10_000),
    cacheMaxBytes: readInt(env, 'OCSP_CACHE_MAX_BYTES', 64 * 1024 * 1024, 0, 2 ** 40),
    fastFront: readEnum(env, 'OCSP_FAST_FRONT', ['on', 'off'] as const, 'on') === 'on',
    workers:
      readString(env, 'OCSP_RESPONDER_WORKERS') === 'auto'
        ? 'auto'
        : readInt(env, 'OCSP_RESPONDER_WORKERS', 1, 1, MAX_RESPONDER_WORKERS),
  };
}

function readJwtPublicKey(env: Env): string | undefined {
  const inline = readString(env, 'JWT_PUBLIC_KEY');
  const file = readString(env, 'JWT_PUBLIC_KEY_FILE');
  if (inline && file)
    throw new ConfigError(
      'JWT_PUBLIC_KEY_FILE',
      'set either JWT_PUBLIC_KEY or JWT_PUBLIC_KEY_FILE, not both',
    );
  if (inline) return inline.replace(/\\n/g, '\n');
  if (!file) return undefined;
  try {
    return readFileSync(file, 'utf8');
  } catch {
    throw new ConfigError('JWT_PUBLIC_KEY_FILE', `cannot read ${file}`);
  }
}
