import { openPayload, sealPayload } from './download-payload';
import { decodeDownloadToken, encodeDownloadToken, lookupHashOf, newDownloadToken } from './download-token';

describe('download token', () => {
  it('round-trips as 64 base64url characters, and every token is different', () => {
    const token = newDownloadToken();
    const text = encodeDownloadToken(token);
    expect(text).toMatch(/^[A-Za-z0-9_-]{64}$/);
    const decoded = decodeDownloadToken(text)!;
    expect(decoded.lookupId.equals(token.lookupId)).toBe(true);
    expect(decoded.key.equals(token.key)).toBe(true);
    expect(encodeDownloadToken(newDownloadToken())).not.toBe(text);
  });

  it.each([
    ['empty', ''],
    ['one character short', 'A'.repeat(63)],
    ['one character long', 'A'.repeat(65)],
    ['standard base64 characters', `${'A'.repeat(62)}+/`],
    ['padding', `${'A'.repeat(62)}==`],
    ['a dot', `${'A'.repeat(63)}.`],
  ])('refuses a garbled token (%s)', (_name, text) => {
    expect(decodeDownloadToken(text)).toBeUndefined();
  });

  it('stores a hash of the lookup id that reveals neither the id nor the key', () => {
    const token = newDownloadToken();
    const hash = lookupHashOf(token);
    expect(hash).toHaveLength(32);
    expect(hash.includes(token.lookupId)).toBe(false);
    expect(hash.includes(token.key)).toBe(false);
    expect(lookupHashOf(decodeDownloadToken(encodeDownloadToken(token))!).equals(hash)).toBe(true);
  });
});

describe('download payload', () => {
  const token = newDownloadToken();
  const context = lookupHashOf(token);
  const plaintext = Buffer.from('-----BEGIN PRIVATE KEY-----\nsecret\n-----END PRIVATE KEY-----\n');

  it('opens with the key of its link and does not contain the plaintext', () => {
    const sealed = sealPayload(token.key, context, plaintext);
    expect(sealed.sealed.includes(Buffer.from('secret'))).toBe(false);
    expect(openPayload(token.key, context, sealed)?.equals(plaintext)).toBe(true);
  });

  it('does not open with another key, in another row, or after a bit flip', () => {
    const sealed = sealPayload(token.key, context, plaintext);
    expect(openPayload(newDownloadToken().key, context, sealed)).toBeUndefined();
    expect(openPayload(token.key, lookupHashOf(newDownloadToken()), sealed)).toBeUndefined();
    const flipped = Buffer.from(sealed.sealed);
    flipped[0] ^= 1;
    expect(openPayload(token.key, context, { iv: sealed.iv, sealed: flipped })).toBeUndefined();
    expect(openPayload(token.key, context, { iv: sealed.iv, sealed: Buffer.alloc(3) })).toBeUndefined();
  });
});
