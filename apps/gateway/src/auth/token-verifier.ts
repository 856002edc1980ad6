import { KeyObject, createPublicKey } from 'node:crypto';
import { CaError, ErrorCode, parseTenantId } from '@ca/contracts';
import { ConfigError } from '@ca/config';
import {
  JWTPayload,
  JWTVerifyGetKey,
  createRemoteJWKSet,
  decodeProtectedHeader,
  errors,
  importSPKI,
  jwtVerify,
} from 'jose';
import { textProblem } from '../text/text-rules';
import { AuthenticatedPrincipal } from './authenticated-principal';
import { VerifiedTokenCache } from './verified-token-cache';

/** Far above any real token; refuses abuse before any parsing. */
const MAX_TOKEN_LENGTH = 16 * 1024;

type VerificationKey = KeyObject | Awaited<ReturnType<typeof importSPKI>> | JWTVerifyGetKey;

/** A verified token's principal, and the JWKS key that verified it (none with a configured key). */
interface Verified {
  principal: AuthenticatedPrincipal;
  jwksKey?: unknown;
}

export interface TokenVerifierOptions {
  publicKeyPem?: string;
  jwksUri?: string;
  issuer?: string;
  audience?: string;
  /** Longest accepted lifetime in seconds: exp - iat, or exp - now without iat (default 24 h). */
  maxLifetimeSeconds?: number;
  /** Tolerance in seconds on exp, nbf and iat (default 60). */
  clockSkewSeconds?: number;
}

export const DEFAULT_MAX_TOKEN_LIFETIME_SECONDS = 24 * 3600;
export const DEFAULT_CLOCK_SKEW_SECONDS = 60;

/**
 * Verifies admin tokens (docs/api.md#tokens) with jose: the algorithm is fixed by the key type
 * (RS256, ES256 or EdDSA), so `alg: none` and algorithm confusion fail; `exp` and `sub` are
 * required; `iss`/`aud` are checked when configured; `exp`, `nbf` and `iat` (RFC 7519 4.1.4-4.1.6)
 * within the clock skew, and a lifetime no longer than the configured maximum (a stolen token of
 * years is refused); `sub` must be acceptable text (docs/security.md). A token verified once is not verified again
 * until its `exp` (VerifiedTokenCache): with a configured key nothing else can change its outcome;
 * with a JWKS, a kept token is accepted only while the key set, asked as a verification would ask
 * it (and so refetched when jose would refetch it), still gives the very key that verified it.
 */
export class TokenVerifier {
  private readonly verified = new VerifiedTokenCache<Verified>();

  private constructor(
    private readonly key: VerificationKey,
    private readonly algorithms: string[],
    private readonly options: TokenVerifierOptions,
  ) {}

  static async create(options: TokenVerifierOptions): Promise<TokenVerifier> {
    if (options.jwksUri) {
      return new TokenVerifier(
        createRemoteJWKSet(new URL(options.jwksUri)),
        ['RS256', 'ES256', 'EdDSA'],
        options,
      );
    }
    if (!options.publicKeyPem) throw new ConfigError('JWT_PUBLIC_KEY', 'no key to verify tokens with');
    const algorithm = algorithmOf(options.publicKeyPem);
    return new TokenVerifier(await importSPKI(options.publicKeyPem, algorithm), [algorithm], options);
  }

  async verify(token: string): Promise<AuthenticatedPrincipal> {
    if (token.length > MAX_TOKEN_LENGTH) throw invalidToken();
    const kept = this.verified.get(token);
    if (kept && (await this.stillVerifies(token, kept))) return copyOf(kept.principal);
    let payload: JWTPayload;
    let jwksKey: unknown;
    try {
      const verifyOptions = {
        algorithms: this.algorithms,
        issuer: this.options.issuer,
        audience: this.options.audience,
        requiredClaims: ['exp', 'sub'],
        clockTolerance: this.clockSkew,
      };
      const result = await jwtVerify(token, this.key as JWTVerifyGetKey, verifyOptions);
      payload = result.payload;
      if (typeof this.key === 'function') jwksKey = result.key;
    } catch (error) {
      if (error instanceof errors.JWTExpired)
        throw new CaError(ErrorCode.ExpiredToken, 'The token has expired.');
      throw invalidToken();
    }
    const lifetimeProblem = this.lifetimeProblem(payload);
    if (lifetimeProblem) throw invalidToken(lifetimeProblem);
    const tenantId = parseTenantId(payload['tenantId']);
    if (!tenantId) throw invalidToken('The token has no valid tenantId claim.');
    if (typeof payload.sub !== 'string' || payload.sub.length === 0) throw invalidToken();
    if (textProblem(payload.sub)) throw invalidToken("The token's sub claim is not acceptable text.");
    const principal = { tenantId, subject: payload.sub, scopes: scopesOf(payload) };
    // Kept as long as jose would accept it: until exp plus the clock skew.
    this.verified.set(
      token,
      { principal: copyOf(principal), jwksKey },
      (payload.exp as number) + this.clockSkew,
    );
    return principal;
  }

  private get clockSkew(): number {
    return this.options.clockSkewSeconds ?? DEFAULT_CLOCK_SKEW_SECONDS;
  }

  /** Why the token's times are refused beyond what jose checks: a future iat, a too long life. */
  private lifetimeProblem(payload: JWTPayload): string | undefined {
    const now = Math.floor(Date.now() / 1000);
    const exp = payload.exp as number;
    const iat = payload.iat;
    if (iat !== undefined && iat > now + this.clockSkew) return 'The token was issued in the future (iat).';
    const maxLifetime = this.options.maxLifetimeSeconds ?? DEFAULT_MAX_TOKEN_LIFETIME_SECONDS;
    const lifetime = exp - (iat ?? now);
    if (lifetime > maxLifetime)
      return `The token is valid for longer than the ${maxLifetime} s this API accepts (exp - iat).`;
    return undefined;
  }

  /** With a JWKS: whether the key set (refreshed as jose refreshes it) still yields the same key. */
  private async stillVerifies(token: string, kept: Verified): Promise<boolean> {
    if (typeof this.key !== 'function') return true;
    try {
      const [protectedPart, payload, signature] = token.split('.');
      const current = await this.key(decodeProtectedHeader(token) as Parameters<JWTVerifyGetKey>[0], {
        protected: protectedPart,
        payload,
        signature,
      });
      if (current === kept.jwksKey) return true;
    } catch {
      // The key is gone (or the set unreachable): verify afresh, which answers as it always did.
    }
    this.verified.delete(token);
    return false;
  }
}

/** Callers may change what they get; the kept principal must not change with it. */
function copyOf(principal: AuthenticatedPrincipal): AuthenticatedPrincipal {
  return { ...principal, scopes: [...principal.scopes] };
}

function invalidToken(message = 'A valid bearer token is required.'): CaError {
  return new CaError(ErrorCode.InvalidToken, message);
}

/** `scope` as a space-separated string (RFC 8693) or `scp` as an array. */
function scopesOf(payload: JWTPayload): string[] {
  const scope = payload['scope'];
  const scp = payload['scp'];
  const fromScope = typeof scope === 'string' ? scope.split(' ').filter(Boolean) : [];
  const fromScp = Array.isArray(scp) ? scp.filter((s): s is string => typeof s === 'string') : [];
  return [...new Set([...fromScope, ...fromScp])];
}

function algorithmOf(pem: string): 'RS256' | 'ES256' | 'EdDSA' {
  let key: KeyObject;
  try {
    key = createPublicKey(pem);
  } catch {
    throw new ConfigError('JWT_PUBLIC_KEY', 'is not a PEM public key (SPKI)');
  }
  if (key.asymmetricKeyType === 'rsa') return 'RS256';
  if (key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1') return 'ES256';
  if (key.asymmetricKeyType === 'ed25519') return 'EdDSA';
  throw new ConfigError('JWT_PUBLIC_KEY', 'must be an RSA, P-256 or Ed25519 public key');
}
