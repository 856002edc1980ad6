import { associatedData } from './associated-data';

const key = { version: 1, algorithm: 'ECDSA-P256' as const, publicKeySpki: Uint8Array.of(0x30, 0x00) };

describe('associatedData', () => {
  it('length-prefixes domain, version, algorithm, tenantId, keyId and public key', () => {
    const hex = Buffer.from(associatedData({ tenantId: 't1', keyId: 'k' }, key)).toString('hex');
    const field = (octets: Buffer) => octets.length.toString(16).padStart(8, '0') + octets.toString('hex');
    expect(hex).toBe(
      [
        Buffer.from('ca-manager/key-custody/local'),
        Buffer.of(1),
        Buffer.from('ECDSA-P256'),
        Buffer.from('t1'),
        Buffer.from('k'),
        Buffer.of(0x30, 0x00),
      ]
        .map(field)
        .join(''),
    );
  });

  it('tells apart contexts whose concatenation is the same', () => {
    const a = Buffer.from(associatedData({ tenantId: 'ab', keyId: 'c' }, key));
    const b = Buffer.from(associatedData({ tenantId: 'a', keyId: 'bc' }, key));
    expect(a.equals(b)).toBe(false);
  });

  it('changes with every field', () => {
    const base = Buffer.from(associatedData({ tenantId: 't', keyId: 'k' }, key));
    const variants = [
      associatedData({ tenantId: 'T', keyId: 'k' }, key),
      associatedData({ tenantId: 't', keyId: 'K' }, key),
      associatedData({ tenantId: 't', keyId: 'k' }, { ...key, version: 2 }),
      associatedData({ tenantId: 't', keyId: 'k' }, { ...key, publicKeySpki: Uint8Array.of(0x30, 0x01) }),
    ];
    for (const variant of variants) expect(base.equals(Buffer.from(variant))).toBe(false);
  });

  it('encodes text as UTF-8', () => {
    const ad = Buffer.from(associatedData({ tenantId: 'é', keyId: 'k' }, key));
    expect(ad.includes(Buffer.from('00000002c3a9', 'hex'))).toBe(true);
  });
});
