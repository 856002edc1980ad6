import { createHmac, randomBytes } from 'node:crypto';

/** The prefix of a Standard Webhooks signing secret; the rest is the key, base64. */
const SECRET_PREFIX = 'whsec_';

/** A new signing secret: `whsec_` and 32 random octets, base64 (Standard Webhooks, symmetric). */
export function newSigningSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

/**
 * The headers of one delivery by the Standard Webhooks specification: `webhook-signature` is
 * `v1,` and the base64 HMAC-SHA256, keyed with the secret's decoded key, of
 * `<webhook-id>.<webhook-timestamp>.<body>`.
 */
export function signedHeaders(
  secret: string,
  webhookId: string,
  timestampSeconds: number,
  body: string,
): Record<string, string> {
  if (!secret.startsWith(SECRET_PREFIX)) throw new Error('not a whsec_ signing secret');
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  const signature = createHmac('sha256', key)
    .update(`${webhookId}.${timestampSeconds}.${body}`)
    .digest('base64');
  return {
    'webhook-id': webhookId,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': `v1,${signature}`,
  };
}
