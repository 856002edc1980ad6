import { decodeKeyValueExtension, encodeKeyValueExtension } from './key-value-extension';
import { PkiFormatError } from './pki-format.error';

describe('key/value custom extension', () => {
  it('round-trips a key and a value, Unicode included', () => {
    const der = encodeKeyValueExtension('team', 'Zahlungsverkehr – EU');
    expect(der[0]).toBe(0x30);
    expect(decodeKeyValueExtension(der)).toEqual({ key: 'team', value: 'Zahlungsverkehr – EU' });
  });

  it('keeps an empty value and 255-character strings', () => {
    const long = 'x'.repeat(255);
    expect(decodeKeyValueExtension(encodeKeyValueExtension(long, ''))).toEqual({ key: long, value: '' });
  });

  it('refuses anything else', () => {
    expect(() => decodeKeyValueExtension(Uint8Array.from([0x0c, 0x01, 0x41]))).toThrow(PkiFormatError);
    expect(() => decodeKeyValueExtension(Uint8Array.from([0x30, 0x03, 0x0c, 0x01, 0x41]))).toThrow(
      PkiFormatError,
    );
  });
});
