import { generateKeyPairSync } from 'node:crypto';
import { createSealRecipient, sealTo } from './sealed-box';

describe('sealed secrets', () => {
  it('opens with the recipient that asked for it, and only with it', () => {
    const recipient = createSealRecipient();
    const secret = Buffer.from('a 32-octet HMAC key for the test');
    const sealed = sealTo(recipient.publicKey, secret);
    expect(recipient.open(sealed)).toEqual(secret);
    expect(Buffer.from(sealed.ciphertext, 'base64').includes(secret)).toBe(false);
    expect(() => createSealRecipient().open(sealed)).toThrow();
  });

  it('refuses a tampered ciphertext', () => {
    const recipient = createSealRecipient();
    const sealed = sealTo(recipient.publicKey, Buffer.from('secret'));
    const bytes = Buffer.from(sealed.ciphertext, 'base64');
    bytes[0] ^= 1;
    expect(() => recipient.open({ ...sealed, ciphertext: bytes.toString('base64') })).toThrow();
  });

  it('refuses to seal to a key that is not X25519', () => {
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const der = ec.publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
    expect(() => sealTo(der, Buffer.from('secret'))).toThrow(/X25519/);
  });
});
