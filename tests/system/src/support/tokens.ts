import { webcrypto } from 'node:crypto';
import { SignJWT, exportSPKI, generateKeyPair } from 'jose';

/** Every scope of docs/api.md#tokens. */
export const ALL_SCOPES = 'ca:admin certificates:read certificates:write';

export interface TokenOptions {
  /** Claims added to (or, as undefined, overriding) tenantId and the default scope. */
  claims?: Record<string, unknown>;
  /** Claims left out altogether. */
  omit?: string[];
  /** Seconds since the epoch; null for a token without `exp`. Five minutes from now by default. */
  exp?: number | null;
  /** Another signing key (one the system does not trust, say). */
  key?: webcrypto.CryptoKey;
  /** The `sub`; null for a token without one. */
  subject?: string | null;
}

/**
 * ES256 admin tokens (docs/api.md#tokens) signed by a key pair of the test; the system under test
 * trusts `publicKeyPem` (JWT_PUBLIC_KEY). `otherKey` is a key it does not trust.
 */
export class TestTokens {
  private constructor(
    readonly signingKey: webcrypto.CryptoKey,
    readonly otherKey: webcrypto.CryptoKey,
    readonly publicKeyPem: string,
    private readonly defaultScope: string,
  ) {}

  static async create(defaultScope = 'ca:admin'): Promise<TestTokens> {
    const pair = await generateKeyPair('ES256');
    const other = await generateKeyPair('ES256');
    return new TestTokens(pair.privateKey, other.privateKey, await exportSPKI(pair.publicKey), defaultScope);
  }

  sign(tenantId: unknown, options: TokenOptions = {}): Promise<string> {
    const claims: Record<string, unknown> = { tenantId, scope: this.defaultScope, ...options.claims };
    for (const name of options.omit ?? []) delete claims[name];
    let jwt = new SignJWT(claims).setProtectedHeader({ alg: 'ES256', typ: 'JWT' }).setIssuedAt();
    if (options.subject !== null) jwt = jwt.setSubject(options.subject ?? 'system-test');
    if (options.exp !== null) jwt = jwt.setExpirationTime(options.exp ?? Math.floor(Date.now() / 1000) + 300);
    return jwt.sign(options.key ?? this.signingKey);
  }

  /** A token with exactly these scopes (space-separated). */
  withScope(tenantId: unknown, scope: string): Promise<string> {
    return this.sign(tenantId, { claims: { scope } });
  }
}

export function base64url(value: object | string): string {
  return Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
}
