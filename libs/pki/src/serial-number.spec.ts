import { assertValidSerialNumber, randomSerialNumber, serialFromHex, serialToHex } from './serial-number';

describe('randomSerialNumber', () => {
  const samples = Array.from({ length: 2000 }, () => randomSerialNumber());

  it('is 16 octets: a positive, minimally encoded DER INTEGER (RFC 5280 4.1.2.2)', () => {
    for (const serial of samples) {
      expect(serial).toHaveLength(16);
      expect(serial[0] & 0x80).toBe(0);
      expect(serial[0]).not.toBe(0);
      expect(() => assertValidSerialNumber(serial)).not.toThrow();
    }
  });

  it('prints as 32 hex digits that read back to the same octets', () => {
    for (const serial of samples) {
      const hex = serialToHex(serial);
      expect(hex).toMatch(/^(?!00)[0-7][0-9A-F]{31}$/);
      expect(serialFromHex(hex)).toEqual(serial);
    }
  });

  it('does not repeat and uses every bit after the first octet', () => {
    expect(new Set(samples.map(serialToHex)).size).toBe(samples.length);
    let ored = 0;
    for (const serial of samples) for (const octet of serial.subarray(1)) ored |= octet;
    expect(ored).toBe(0xff);
  });
});

describe('serialToHex', () => {
  it.each([
    [[0x01], '01'],
    [[0x0a, 0xbc], '0ABC'],
    // The 0x00 sign octet in front of a high bit is not part of the value; openssl omits it.
    [[0x00, 0x80, 0x01], '8001'],
    [[0x00, 0x00, 0x7f], '7F'],
    // Negative serials (non-conforming, but found in the wild) print as openssl does.
    [[0xff], '-01'],
    [[0x80], '-80'],
    [[0xff, 0x00], '-0100'],
  ])('%j prints %s', (octets, hex) => {
    expect(serialToHex(Uint8Array.from(octets))).toBe(hex);
  });

  it('rejects an empty INTEGER', () => {
    expect(() => serialToHex(new Uint8Array())).toThrow(RangeError);
  });
});

describe('serialFromHex', () => {
  it.each([
    ['01', [0x01]],
    ['abc', [0x0a, 0xbc]],
    ['8001', [0x00, 0x80, 0x01]],
    ['00007F', [0x7f]],
  ])('%s reads as %j', (hex, octets) => {
    expect(serialFromHex(hex)).toEqual(Uint8Array.from(octets));
  });

  it.each(['', '0', '00', 'XYZ', '01:02', '-01', '80'.padEnd(40, '0')])('rejects %j', (hex) => {
    expect(() => serialFromHex(hex)).toThrow(RangeError);
  });
});

describe('assertValidSerialNumber', () => {
  it('accepts 20 octets, the RFC 5280 maximum, including a sign octet', () => {
    expect(() => assertValidSerialNumber(serialFromHex('7F'.padEnd(40, 'F')))).not.toThrow();
    expect(() => assertValidSerialNumber(Uint8Array.of(0, 0x80, ...new Array(18).fill(1)))).not.toThrow();
  });

  it.each([
    ['empty', []],
    ['21 octets', new Array(21).fill(1)],
    ['negative', [0x80, 0x01]],
    ['zero', [0x00]],
    ['not minimal', [0x00, 0x01]],
  ])('rejects %s', (_case, octets) => {
    expect(() => assertValidSerialNumber(Uint8Array.from(octets))).toThrow(RangeError);
  });
});
