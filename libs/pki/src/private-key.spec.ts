import { createPrivateKey, createPublicKey } from 'node:crypto';

import { exportSpkiDer, generateEcKeyPair } from './ec-key-pair';
import { pemToDer } from './pem';
import { exportPrivateKeyPem, generateLeafKeyPair } from './private-key';

describe('generateLeafKeyPair', () => {
  it('makes an extractable P-256 ECDSA key pair', async () => {
    const { privateKey, publicKey } = await generateLeafKeyPair();
    expect(privateKey.extractable).toBe(true);
    expect(privateKey.algorithm).toEqual({ name: 'ECDSA', namedCurve: 'P-256' });
    expect(publicKey.algorithm).toEqual({ name: 'ECDSA', namedCurve: 'P-256' });
  });
});

describe('exportPrivateKeyPem', () => {
  it('writes an unencrypted PKCS#8 PRIVATE KEY that Node reads back as the same key', async () => {
    const { privateKey, publicKey } = await generateLeafKeyPair();
    const pem = await exportPrivateKeyPem(privateKey);
    expect(pem).toMatch(
      /^-----BEGIN PRIVATE KEY-----\n(?:[A-Za-z0-9+/=]{1,64}\n)+-----END PRIVATE KEY-----\n$/,
    );

    // PrivateKeyInfo (RFC 5958): SEQUENCE (135 octets) { INTEGER 0, SEQUENCE { id-ecPublicKey, prime256v1 }, … }
    const der = Buffer.from(pemToDer(pem, 'PRIVATE KEY'));
    expect(der.subarray(0, 3).toString('hex')).toBe('308187');
    expect(der.subarray(3, 27).toString('hex')).toBe('020100301306072a8648ce3d020106082a8648ce3d030107');

    const nodeKey = createPrivateKey(pem);
    expect(nodeKey.asymmetricKeyType).toBe('ec');
    expect(nodeKey.asymmetricKeyDetails).toEqual({ namedCurve: 'prime256v1' });
    const derivedSpki = createPublicKey(nodeKey).export({ type: 'spki', format: 'der' });
    expect(derivedSpki).toEqual(Buffer.from(await exportSpkiDer(publicKey)));
  });

  it('refuses a non-extractable key, as custody keys are', async () => {
    const { privateKey } = await generateEcKeyPair(false);
    await expect(exportPrivateKeyPem(privateKey)).rejects.toThrow('The private key is not extractable');
  });

  it('refuses a public key', async () => {
    const { publicKey } = await generateLeafKeyPair();
    await expect(exportPrivateKeyPem(publicKey)).rejects.toThrow('Expected a private key, got a public key');
  });
});
