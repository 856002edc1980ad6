import { KeyObject, createPublicKey } from 'node:crypto';
import { CaError, ErrorCode } from '@ca/contracts';
import { ConfigError } from '@ca/config';
import { JWTPayload, JWTVerifyGetKey, createRemoteJWKSet, errors, importSPKI, jwtVerify } from 'jose';
import { AuthenticatedPrincipal } from './authenticated-principal';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Far above any real token; refuses abuse before any parsing. */
const MAX_TOKEN_LENGTH = 16 * 1024;

type VerificationKey = KeyObject | Awaited<ReturnType<typeof importSPKI>> | JWTVerifyGetKey;

export interface TokenVerifierOptions {
  publicKeyPem?: string;
  jwksUri?: string;
  issuer?: string;
  audience?: string;
}

/**
 * Verifies admin tokens (CONTRACT section 3) with jose: the algorithm is fixed by the key type
 * (RS256, ES256 or EdDSA), so `alg: none` and algorithm confusion fail; `exp` and `sub` are
 * required; `iss`/`aud` are checked when configured.
 */
export class TokenVerifier {
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
    let payload: JWTPayload;
    try {
      const verifyOptions = {
        algorithms: this.algorithms,
        issuer: this.options.issuer,
        audience: this.options.audience,
        requiredClaims: ['exp', 'sub'],
      };
      payload = (await jwtVerify(token, this.key as JWTVerifyGetKey, verifyOptions)).payload;
    } catch (error) {
      if (error instanceof errors.JWTExpired)
        throw new CaError(ErrorCode.ExpiredToken, 'The token has expired.');
      throw invalidToken();
    }
    const tenantId = payload['tenantId'];
    if (typeof tenantId !== 'string' || !UUID.test(tenantId))
      throw invalidToken('The token has no valid tenantId claim.');
    if (typeof payload.sub !== 'string' || payload.sub.length === 0) throw invalidToken();
    return { tenantId: tenantId.toLowerCase(), subject: payload.sub, scopes: scopesOf(payload) };
  }
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
