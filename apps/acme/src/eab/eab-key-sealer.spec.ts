import { randomBytes } from 'node:crypto';
import { EabKeySealer } from './eab-key-sealer';

describe('EabKeySealer', () => {
  const sealer = new EabKeySealer(randomBytes(32));
  const owner = { tenantId: 'tenant-a', keyId: 'kid-1' };
  const hmacKey = randomBytes(32);

  it('opens what it sealed, and the blob does not contain the key', () => {
    const sealed = sealer.seal(owner, hmacKey);
    expect(sealed.includes(hmacKey)).toBe(false);
    expect(sealer.open(owner, sealed).equals(hmacKey)).toBe(true);
  });

  it('refuses a blob moved to another tenant or key id, altered, or sealed under another KEK', () => {
    const sealed = sealer.seal(owner, hmacKey);
    expect(() => sealer.open({ ...owner, tenantId: 'tenant-b' }, sealed)).toThrow();
    expect(() => sealer.open({ ...owner, keyId: 'kid-2' }, sealed)).toThrow();
    const altered = Buffer.from(sealed);
    altered[20] ^= 1;
    expect(() => sealer.open(owner, altered)).toThrow();
    expect(() => new EabKeySealer(randomBytes(32)).open(owner, sealed)).toThrow();
    expect(() => sealer.open(owner, hmacKey)).toThrow(/not a sealed EAB key/);
  });
});
