/**
 * Removes secrets from anything about to be logged, by field name and by shape, so that a key
 * or token that reaches a log line by accident (inside an error message, say) is still hidden.
 */
const SECRET_FIELD =
  /(^|_|-)(private_?key(pem)?|privateKeyPem|password|passphrase|pfx(base64)?|pfxBase64|secret|token|authorization|cookie|kek|ca_?kek|pin|wrapped(key)?)$/i;
/** Words that make a field secret wherever they stand in a camelCase, snake_case or kebab name. */
const SECRET_WORDS = new Set([
  'password',
  'passphrase',
  'secret',
  'token',
  'authorization',
  'cookie',
  'kek',
  'pin',
  'pfx',
  'pkcs12',
  'p12',
]);
/** Joined names that are secret: `privateKeyDer`, `wrapped_key`, `newKekBase64` … */
const SECRET_PHRASES = ['privatekey', 'wrappedkey'];
const PEM_PRIVATE_KEY = /-----BEGIN ([A-Z ]*)PRIVATE KEY-----[\s\S]*?(-----END \1PRIVATE KEY-----|$)/g;
const BEARER = /\bBearer\s+[A-Za-z0-9\-_.~+/]+=*/gi;
const JWT = /\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g;
/** Long base64 or base64url runs: candidates for DER that is checked by `isSecretDer`. */
const BASE64_RUN = /[A-Za-z0-9+/_-]{60,}={0,2}/g;

export const REDACTED = '[REDACTED]';

export function scrubString(text: string): string {
  return text
    .replace(PEM_PRIVATE_KEY, REDACTED)
    .replace(BEARER, `Bearer ${REDACTED}`)
    .replace(JWT, REDACTED)
    .replace(BASE64_RUN, (run) =>
      isSecretDer(Buffer.from(run, run.includes('-') || run.includes('_') ? 'base64url' : 'base64'))
        ? REDACTED
        : run,
    );
}

export function isSecretField(name: string): boolean {
  if (SECRET_FIELD.test(name)) return true;
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[\s_.-]+/);
  if (words.some((word) => SECRET_WORDS.has(word))) return true;
  const joined = words.join('');
  return SECRET_PHRASES.some((phrase) => joined.includes(phrase));
}

/**
 * DER whose shape is a private key or a PKCS#12, by its first octets (base64 in a log line, say):
 * SEQUENCE { INTEGER 0 (PKCS#8, RFC 5208), INTEGER 1 then OCTET STRING (SEC1 ECPrivateKey,
 * RFC 5915), INTEGER 3 (PFX, RFC 7292) … }. Certificates (SEQUENCE { SEQUENCE …) stay readable.
 */
export function isSecretDer(der: Uint8Array): boolean {
  if (der.length < 8 || der[0] !== 0x30) return false;
  let offset = 2;
  if (der[1] & 0x80) offset += der[1] & 0x7f;
  if (der[offset] !== 0x02 || der[offset + 1] !== 0x01) return false;
  const version = der[offset + 2];
  if (version === 0 || version === 3) return true;
  return version === 1 && der[offset + 3] === 0x04;
}

export function scrubSecrets<T>(value: T, depth = 0): T {
  if (depth > 8) return value;
  if (typeof value === 'string') return scrubString(value) as T;
  if (value instanceof Error) {
    const copy: Record<string, unknown> = { type: value.name, message: scrubString(value.message) };
    if (value.stack) copy.stack = scrubString(value.stack);
    return copy as T;
  }
  if (Array.isArray(value)) return value.map((v) => scrubSecrets(v, depth + 1)) as T;
  if (value instanceof Uint8Array) return REDACTED as T;
  // Buffers reach here as Uint8Array; their JSON form ({type:'Buffer', data}) is redacted too.
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value))
      out[key] = isSecretField(key) ? REDACTED : scrubSecrets(v, depth + 1);
    return out as T;
  }
  return value;
}
