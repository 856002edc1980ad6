import { exportSpkiDer, generateEcKeyPair, importEcPublicKey } from './ec-key-pair';
import { PkiFormatError } from './pki-format.error';

describe('generateEcKeyPair', () => {
  it('makes an ECDSA P-256 pair that signs and verifies', async () => {
    const { publicKey, privateKey } = await generateEcKeyPair(false);
    expect(privateKey.algorithm).toEqual({ name: 'ECDSA', namedCurve: 'P-256' });
    const data = new TextEncoder().encode('tbs');
    const signature = await crypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, privateKey, data);
    expect(await crypto.subtle.verify({ name: 'ECDSA', hash: 'SHA-256' }, publicKey, signature, data)).toBe(
      true,
    );
  });

  it('keeps the private key inside unless asked otherwise', async () => {
    const kept = await generateEcKeyPair(false);
    expect(kept.privateKey.extractable).toBe(false);
    await expect(crypto.subtle.exportKey('pkcs8', kept.privateKey)).rejects.toThrow();
    const exportable = await generateEcKeyPair(true);
    await expect(crypto.subtle.exportKey('pkcs8', exportable.privateKey)).resolves.toBeDefined();
  });
});

describe('exportSpkiDer', () => {
  it('exports a P-256 SubjectPublicKeyInfo: 91 octets ending in the 65-octet uncompressed point', async () => {
    const spki = await exportSpkiDer((await generateEcKeyPair(false)).publicKey);
    expect(spki).toBeInstanceOf(Uint8Array);
    expect(spki).toHaveLength(91);
    expect(Buffer.from(spki.subarray(0, 27)).toString('hex')).toBe(
      // SEQUENCE { SEQUENCE { id-ecPublicKey, prime256v1 }, BIT STRING { 0x04 (uncompressed) … } }
      '3059301306072a8648ce3d020106082a8648ce3d03010703420004',
    );
  });
});

describe('importEcPublicKey', () => {
  it('imports a P-256 SubjectPublicKeyInfo that verifies what the private key signed', async () => {
    const { publicKey, privateKey } = await generateEcKeyPair(false);
    const imported = await importEcPublicKey(await exportSpkiDer(publicKey));
    expect(imported.algorithm).toEqual({ name: 'ECDSA', namedCurve: 'P-256' });
    expect(Buffer.from(await exportSpkiDer(imported))).toEqual(Buffer.from(await exportSpkiDer(publicKey)));
    const data = new TextEncoder().encode('tbs');
    const signature = await crypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, privateKey, data);
    expect(await crypto.subtle.verify({ name: 'ECDSA', hash: 'SHA-256' }, imported, signature, data)).toBe(
      true,
    );
  });

  it('throws PkiFormatError for garbage and for a key of another curve', async () => {
    await expect(importEcPublicKey(Uint8Array.of(0x30, 0))).rejects.toThrow(PkiFormatError);
    const p384 = await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-384' }, true, ['sign']);
    const spki = new Uint8Array(await crypto.subtle.exportKey('spki', p384.publicKey));
    await expect(importEcPublicKey(spki)).rejects.toThrow(PkiFormatError);
  });
});
