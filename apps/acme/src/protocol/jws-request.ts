import { type KeyObject, createPublicKey } from 'node:crypto';
import { FlattenedJWSInput, JWK, calculateJwkThumbprint, flattenedVerify, importJWK } from 'jose';
import { AcmeProblem, malformed } from './acme-problem';

/** RFC 8555 6.2: the signature algorithms accepted for account keys. */
export const ACME_JWS_ALGORITHMS = ['ES256', 'ES384', 'RS256', 'EdDSA'] as const;

/** The parts of a flattened JWS (RFC 7515 7.2.2) an ACME request must be. */
export interface FlattenedJws {
  protected: string;
  payload: string;
  signature: string;
}

export interface AcmeProtectedHeader {
  alg: string;
  nonce?: string;
  url: string;
  jwk?: JWK;
  kid?: string;
}

/** A request whose signature verified: its header, its payload ('' for POST-as-GET) and key. */
export interface VerifiedJws {
  header: AcmeProtectedHeader;
  /** The payload text; '' for POST-as-GET (RFC 8555 6.3). */
  payload: string;
  /** The key that signed it: the header's jwk, or the account's. */
  jwk: JWK;
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Reads the body as a flattened JWS; anything else (general or compact form, extra fields) is malformed. */
export function parseFlattenedJws(body: Buffer): FlattenedJws {
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch {
    throw malformed('the request body must be a JWS in flattened JSON serialization');
  }
  if (!isRecord(value)) throw malformed('the request body must be a JWS in flattened JSON serialization');
  const { protected: prot, payload, signature } = value;
  if (typeof prot !== 'string' || typeof payload !== 'string' || typeof signature !== 'string') {
    throw malformed('the JWS must have string protected, payload and signature members');
  }
  // RFC 8555 6.2: no unprotected header.
  if ('header' in value || 'signatures' in value)
    throw malformed('the JWS must not have an unprotected header');
  return { protected: prot, payload, signature };
}

/** Decodes and checks the protected header's shape (RFC 8555 6.2); the signature is checked later. */
export function readProtectedHeader(jws: FlattenedJws): AcmeProtectedHeader {
  let header: unknown;
  try {
    header = JSON.parse(Buffer.from(jws.protected, 'base64url').toString('utf8'));
  } catch {
    throw malformed('the JWS protected header is not base64url JSON');
  }
  if (!isRecord(header)) throw malformed('the JWS protected header must be a JSON object');
  const { alg, nonce, url, jwk, kid } = header;
  if (typeof alg !== 'string') throw malformed('the JWS protected header has no alg');
  if (!(ACME_JWS_ALGORITHMS as readonly string[]).includes(alg)) {
    throw new AcmeProblem(
      'badSignatureAlgorithm',
      `alg ${alg} is not accepted; use one of ${ACME_JWS_ALGORITHMS.join(', ')}`,
    );
  }
  if (typeof url !== 'string') throw malformed('the JWS protected header has no url');
  if (nonce !== undefined && typeof nonce !== 'string') throw malformed('nonce must be a string');
  if ((jwk === undefined) === (kid === undefined)) {
    throw malformed('the JWS protected header must have exactly one of jwk and kid');
  }
  if (jwk !== undefined && !isRecord(jwk)) throw malformed('jwk must be a JSON object');
  if (kid !== undefined && typeof kid !== 'string') throw malformed('kid must be a string');
  if (isRecord(jwk) && ('d' in jwk || 'p' in jwk || 'k' in jwk)) {
    throw new AcmeProblem('badPublicKey', 'the jwk must be a public key');
  }
  return { alg, nonce, url, jwk: jwk as JWK | undefined, kid };
}

/** Verifies the signature with `jwk` under the header's alg; the key must suit the alg. */
export async function verifyJwsSignature(
  jws: FlattenedJws,
  header: AcmeProtectedHeader,
  jwk: JWK,
): Promise<string> {
  const key = await accountKey(jwk, header.alg);
  try {
    const { payload } = await flattenedVerify(jws as FlattenedJWSInput, key, {
      algorithms: [...ACME_JWS_ALGORITHMS],
    });
    return Buffer.from(payload).toString('utf8');
  } catch {
    throw malformed('the JWS signature does not verify');
  }
}

/** Imported account keys kept per replica (most requests are signed by a few busy accounts). */
const MAX_CACHED_KEYS = 10_000;
type VerifyKey = Awaited<ReturnType<typeof importJWK>>;
const importedKeys = new Map<string, VerifyKey>();

/**
 * The key to verify with, imported once per key and alg: importing (and, for RSA, measuring) a
 * JWK on every request was a fixed cost of each. Only keys that passed are kept; a key is its JWK's
 * members, so an account whose key rolled over simply uses another entry.
 */
async function accountKey(jwk: JWK, alg: string): Promise<VerifyKey> {
  const cacheKey = `${alg} ${JSON.stringify(publicMembers(jwk))}`;
  const cached = importedKeys.get(cacheKey);
  if (cached) return cached;
  let key;
  try {
    key = await importJWK(jwk, alg);
  } catch {
    throw new AcmeProblem('badPublicKey', `the key cannot be used with ${alg}`);
  }
  assertStrongEnough(jwk);
  if (importedKeys.size >= MAX_CACHED_KEYS) importedKeys.delete(importedKeys.keys().next().value as string);
  importedKeys.set(cacheKey, key);
  return key;
}

/** The members importJWK reads, in a fixed order (anything else in a JWK does not change the key). */
function publicMembers(jwk: JWK): unknown[] {
  return [jwk.kty, jwk.crv, jwk.x, jwk.y, jwk.n, jwk.e, jwk.d, jwk.k, jwk.ext, jwk.key_ops, jwk.use, jwk.alg];
}

/** RSA account keys of fewer bits are refused (as by Let's Encrypt), more are of no use. */
export const RSA_MODULUS_BITS = { min: 2048, max: 8192 };

/** RFC 8555 6.7 badPublicKey: a key too weak (or too large) to be an account key. */
function assertStrongEnough(jwk: JWK): void {
  if (jwk.kty !== 'RSA') return; // EC and OKP: importJWK took only the curves the algorithms name
  const bits = createPublicKey({ key: jwk as never, format: 'jwk' }).asymmetricKeyDetails?.modulusLength ?? 0;
  if (bits < RSA_MODULUS_BITS.min || bits > RSA_MODULUS_BITS.max) {
    throw new AcmeProblem(
      'badPublicKey',
      `an RSA account key must have ${RSA_MODULUS_BITS.min} to ${RSA_MODULUS_BITS.max} bits, not ${bits}`,
    );
  }
}

/** RFC 7638 thumbprint, SHA-256, base64url: how accounts are found by key and key authorizations made. */
export function thumbprint(jwk: JWK): Promise<string> {
  return calculateJwkThumbprint(publicPart(jwk), 'sha256');
}

/** Only the members that define the public key (RFC 7638 3.2), for storing and comparing. */
export function publicPart(jwk: JWK): JWK {
  switch (jwk.kty) {
    case 'EC':
      return { kty: 'EC', crv: jwk.crv, x: jwk.x, y: jwk.y };
    case 'RSA':
      return { kty: 'RSA', e: jwk.e, n: jwk.n };
    case 'OKP':
      return { kty: 'OKP', crv: jwk.crv, x: jwk.x };
    default:
      throw new AcmeProblem('badPublicKey', 'the key type is not supported (EC, RSA or OKP)');
  }
}

/** The payload as a JSON object; malformed otherwise. */
export function jsonPayload(payload: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(payload);
  } catch {
    throw malformed('the JWS payload must be a JSON object');
  }
  if (!isRecord(value)) throw malformed('the JWS payload must be a JSON object');
  return value;
}

/** RFC 8555 6.3: a POST-as-GET has an exactly empty payload. */
export function postAsGet(payload: string): void {
  if (payload !== '') throw malformed('a POST-as-GET must have an empty payload (RFC 8555 6.3)');
}

/**
 * The RFC 7638 thumbprint of a certificate key (as made from a CSR's SubjectPublicKeyInfo), as an
 * account key of the same key would have; undefined for a key no account could hold.
 */
export async function keyThumbprint(key: KeyObject): Promise<string | undefined> {
  try {
    return await thumbprint(key.export({ format: 'jwk' }) as JWK);
  } catch {
    return undefined;
  }
}
