import { toHex } from './hex';

describe('toHex', () => {
  it('prints uppercase, two digits per octet, no separators', () => {
    expect(toHex(Uint8Array.of(0x00, 0x0f, 0xab, 0xff))).toBe('000FABFF');
    expect(toHex(new Uint8Array())).toBe('');
  });

  it('respects the view of a larger buffer', () => {
    expect(toHex(Uint8Array.of(1, 2, 3, 4).subarray(1, 3))).toBe('0203');
  });
});
