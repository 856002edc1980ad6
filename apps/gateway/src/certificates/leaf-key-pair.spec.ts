import { createPrivateKey, createPublicKey, sign, verify } from 'node:crypto';
import { KeyAlgorithm } from '@ca/contracts';
import { generateLeafKeyPair, generateLeafKeyPairOf } from './leaf-key-pair';

describe('generateLeafKeyPair', () => {
  it('makes a P-256 PKCS#8 private key and the SPKI of its own public key, as OpenSSL reads them', () => {
    for (let i = 0; i < 50; i++) {
      const { privateKeyPem, subjectPublicKey } = generateLeafKeyPair();
      expect(subjectPublicKey.format).toBe('spki');
      const privateKey = createPrivateKey(privateKeyPem);
      expect(privateKey.asymmetricKeyDetails).toEqual({ namedCurve: 'prime256v1' });
      const spki = Buffer.from(subjectPublicKey.der, 'base64');
      const publicKey = createPublicKey({ key: spki, format: 'der', type: 'spki' });
      // The same encodings OpenSSL writes, byte for byte.
      expect(publicKey.export({ type: 'spki', format: 'der' })).toEqual(spki);
      expect(createPublicKey(privateKey).export({ type: 'spki', format: 'der' })).toEqual(spki);
      expect(privateKey.export({ type: 'pkcs8', format: 'pem' })).toBe(privateKeyPem);
      const signature = sign('sha256', Buffer.from('x'), privateKey);
      expect(verify('sha256', Buffer.from('x'), publicKey, signature)).toBe(true);
    }
  });

  it('never makes the same key twice', () => {
    const keys = new Set(Array.from({ length: 100 }, () => generateLeafKeyPair().subjectPublicKey.der));
    expect(keys.size).toBe(100);
  });
});

describe('generateLeafKeyPairOf', () => {
  it('makes an RSA-2048 pair for a deployment that chose it', async () => {
    const keys = await generateLeafKeyPairOf(KeyAlgorithm.Rsa2048);
    const publicKey = createPublicKey({
      key: Buffer.from(keys.subjectPublicKey.der, 'base64'),
      format: 'der',
      type: 'spki',
    });
    expect(publicKey.asymmetricKeyType).toBe('rsa');
    expect(publicKey.asymmetricKeyDetails).toMatchObject({ modulusLength: 2048, publicExponent: 65537n });
    expect(createPrivateKey(keys.privateKeyPem).asymmetricKeyDetails?.modulusLength).toBe(2048);
  });
});
