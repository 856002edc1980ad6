import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/** The prefix of a Standard Webhooks signing secret; the rest is the key, base64. */
const SECRET_PREFIX = 'whsec_';

/** A new signing secret: `whsec_` and 32 random octets, base64 (Standard Webhooks, symmetric). */
export function newSigningSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

/**
 * The headers of one delivery by the Standard Webhooks specification, signed by its reference
 * implementation: `webhook-signature` is `v1,` and the base64 HMAC-SHA256, keyed with the
 * secret's decoded key, of `<webhook-id>.<webhook-timestamp>.<body>`.
 */
export function signedHeaders(
  secret: string,
  webhookId: string,
  timestampSeconds: number,
  body: string,
): Record<string, string> {
  if (!secret.startsWith(SECRET_PREFIX)) throw new Error('not a whsec_ signing secret');
  const signature = new Webhook(secret).sign(webhookId, new Date(timestampSeconds * 1000), body);
  return {
    'webhook-id': webhookId,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': signature,
  };
}
