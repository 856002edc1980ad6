/**
 * Removes secrets from anything about to be logged, by field name and by shape, so that a key
 * or token that reaches a log line by accident (inside an error message, say) is still hidden.
 */
const SECRET_FIELD =
  /(^|_|-)(private_?key(pem)?|privateKeyPem|password|passphrase|pfx(base64)?|pfxBase64|secret|token|authorization|cookie|kek|ca_?kek|pin|wrapped(key)?)$/i;
const PEM_PRIVATE_KEY = /-----BEGIN ([A-Z ]*)PRIVATE KEY-----[\s\S]*?(-----END \1PRIVATE KEY-----|$)/g;
const BEARER = /\bBearer\s+[A-Za-z0-9\-_.~+/]+=*/gi;
const JWT = /\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g;

export const REDACTED = '[REDACTED]';

export function scrubString(text: string): string {
  return text.replace(PEM_PRIVATE_KEY, REDACTED).replace(BEARER, `Bearer ${REDACTED}`).replace(JWT, REDACTED);
}

export function isSecretField(name: string): boolean {
  return SECRET_FIELD.test(name);
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
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value))
      out[key] = isSecretField(key) ? REDACTED : scrubSecrets(v, depth + 1);
    return out as T;
  }
  return value;
}
