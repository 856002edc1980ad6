import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const IV_BYTES = 12;
const TAG_BYTES = 16;

/** A payload sealed with AES-256-GCM (NIST SP 800-38D): a fresh 96-bit IV, the tag after the ciphertext. */
export interface SealedPayload {
  iv: Buffer;
  sealed: Buffer;
}

/**
 * `context` (the row's lookup hash) is authenticated too, so a sealed payload copied into
 * another row does not open there.
 */
export function sealPayload(key: Buffer, context: Buffer, plaintext: Buffer): SealedPayload {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(context);
  const sealed = Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
  return { iv, sealed };
}

/** The plaintext, or undefined when the key is wrong or the data was altered. */
export function openPayload(key: Buffer, context: Buffer, payload: SealedPayload): Buffer | undefined {
  if (payload.sealed.length < TAG_BYTES) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, payload.iv).setAAD(context);
    decipher.setAuthTag(payload.sealed.subarray(payload.sealed.length - TAG_BYTES));
    return Buffer.concat([decipher.update(payload.sealed.subarray(0, -TAG_BYTES)), decipher.final()]);
  } catch {
    return undefined;
  }
}
