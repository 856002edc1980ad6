import { createHmac } from 'node:crypto';

import { pkiCrypto } from './crypto-engine';
import { PKCS12_KDF_PURPOSE, bmpPassword, pkcs12Kdf } from './pkcs12-kdf';

const hex = (text: string) => Buffer.from(text, 'hex');

describe('pkcs12Kdf (RFC 7292 appendix B.2)', () => {
  it('writes the password as a BMPString with a trailing NUL', () => {
    expect(bmpPassword('smeg')).toEqual(hex('0073006d006500670000'));
    expect(bmpPassword('Zü')).toEqual(hex('005a00fc0000'));
  });

  // The published PKCS#12 test vectors (password "smeg" / "queeg", SHA-1), also used by OpenSSL and
  // Bouncy Castle: the 3DES key and IV of purposes 1 and 2, and a MAC key of purpose 3.
  it.each([
    [
      'smeg',
      '0A58CF64530D823F',
      1,
      PKCS12_KDF_PURPOSE.key,
      24,
      '8AAAE6297B6CB04642AB5B077851284EB7128F1A2A7FBCA3',
    ],
    ['smeg', '0A58CF64530D823F', 1, PKCS12_KDF_PURPOSE.iv, 8, '79993DFE048D3B76'],
    ['smeg', '3D83C0E4546AC140', 1, PKCS12_KDF_PURPOSE.mac, 20, '8D967D88F6CAA9D714800AB3D48051D63F73A312'],
    [
      'queeg',
      '05DEC959ACFF72F7',
      1000,
      PKCS12_KDF_PURPOSE.key,
      24,
      'ED2034E36328830FF09DF1E1A07DD357185DAC0D4F9EB3D4',
    ],
    ['queeg', '05DEC959ACFF72F7', 1000, PKCS12_KDF_PURPOSE.iv, 8, '11DEDAD7758D4860'],
  ] as const)(
    'derives the known octets for %s, salt %s, %i iterations, purpose %i',
    (password, salt, iterations, purpose, length, expected) => {
      const derived = pkcs12Kdf('sha1', purpose, bmpPassword(password), hex(salt), iterations, length);
      expect(derived.toString('hex').toUpperCase()).toBe(expected);
    },
  );

  it.each(['SHA-1', 'SHA-256'] as const)(
    "makes the same %s MAC key as pkijs's own derivation (purpose 3)",
    async (hashAlgorithm) => {
      const hash = hashAlgorithm === 'SHA-1' ? 'sha1' : 'sha256';
      const salt = hex('0102030405060708');
      const content = Buffer.from('authenticated safe');
      const expected = await pkiCrypto().stampDataWithPassword({
        password: new Uint8Array(Buffer.from('n7Vw0m3k-Zb1YqH2', 'utf8')).buffer,
        hashAlgorithm,
        salt: new Uint8Array(salt).buffer,
        iterationCount: 2048,
        contentToStamp: new Uint8Array(content).buffer,
      });
      const key = pkcs12Kdf(
        hash,
        PKCS12_KDF_PURPOSE.mac,
        bmpPassword('n7Vw0m3k-Zb1YqH2'),
        salt,
        2048,
        hash === 'sha1' ? 20 : 32,
      );
      expect(createHmac(hash, key).update(content).digest()).toEqual(Buffer.from(expected));
    },
  );

  it('derives more octets than one hash output by chaining blocks', () => {
    const long = pkcs12Kdf(
      'sha1',
      PKCS12_KDF_PURPOSE.key,
      bmpPassword('smeg'),
      hex('0A58CF64530D823F'),
      1,
      24,
    );
    expect(long.subarray(0, 20)).toEqual(
      pkcs12Kdf('sha1', PKCS12_KDF_PURPOSE.key, bmpPassword('smeg'), hex('0A58CF64530D823F'), 1, 20),
    );
  });
});
