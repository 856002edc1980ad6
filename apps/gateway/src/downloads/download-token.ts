import { createHash, randomBytes } from 'node:crypto';

const LOOKUP_ID_BYTES = 16;
const KEY_BYTES = 32;
const TOKEN = /^[A-Za-z0-9_-]{64}$/;

/**
 * A pre-signed download token (docs/api.md#downloads): a random lookup id and the AES-256 key of
 * the stored payload, base64url together (64 characters). The database keeps only a SHA-256
 * of the lookup id, so neither a database dump nor a guess at ids opens a payload.
 */
export interface DownloadToken {
  lookupId: Buffer;
  key: Buffer;
}

export function newDownloadToken(): DownloadToken {
  return { lookupId: randomBytes(LOOKUP_ID_BYTES), key: randomBytes(KEY_BYTES) };
}

export function encodeDownloadToken(token: DownloadToken): string {
  return Buffer.concat([token.lookupId, token.key]).toString('base64url');
}

/** The token of a link, or undefined for anything that is not exactly one (garbled, cut, padded). */
export function decodeDownloadToken(text: string): DownloadToken | undefined {
  if (!TOKEN.test(text)) return undefined;
  const bytes = Buffer.from(text, 'base64url');
  if (bytes.length !== LOOKUP_ID_BYTES + KEY_BYTES) return undefined;
  return { lookupId: bytes.subarray(0, LOOKUP_ID_BYTES), key: bytes.subarray(LOOKUP_ID_BYTES) };
}

/** What the database stores and looks up by. */
export function lookupHashOf(token: DownloadToken): Buffer {
  return createHash('sha256').update(token.lookupId).digest();
}
