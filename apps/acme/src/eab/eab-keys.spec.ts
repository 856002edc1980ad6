import { newEabKeyId } from './eab-keys';

describe('EAB key ids', () => {
  it('never start with "-", so that `certbot --eab-kid "$KID"` cannot read one as an option', () => {
    // A random base64url id starts with "-" once in 64; thousands of ids leave no room for luck.
    const ids = Array.from({ length: 4096 }, () => newEabKeyId());
    for (const id of ids) expect(id).toMatch(/^[A-Za-z][A-Za-z0-9_-]{20,63}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
