import * as asn1js from 'asn1js';

import { encodeDerSequence } from './der-sequence';

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

describe('encodeDerSequence', () => {
  it('wraps the elements unchanged, with a short-form length below 128', () => {
    expect(hex(encodeDerSequence([Uint8Array.of(0x02, 0x01, 0x05), Uint8Array.of(0x05, 0x00)]))).toBe(
      '3005020105' + '0500',
    );
    expect(hex(encodeDerSequence([]))).toBe('3000');
  });

  it.each([
    [127, '307f'],
    [128, '308180'],
    [255, '3081ff'],
    [256, '30820100'],
    [65_536, '3083010000'],
  ])('writes the length %i as %s (minimal long form from 128 on)', (length, header) => {
    const element = new Uint8Array(length); // content octets only: the wrapper does not look inside
    const der = encodeDerSequence([element]);
    expect(hex(der.subarray(0, header.length / 2))).toBe(header);
    expect(der.byteLength).toBe(header.length / 2 + length);
  });

  it('matches what asn1js writes for the same SEQUENCE', () => {
    const elements = [new asn1js.OctetString({ valueHex: new Uint8Array(300).fill(7) }), new asn1js.Null()];
    const expected = new asn1js.Sequence({ value: elements }).toBER(false);
    const actual = encodeDerSequence(elements.map((element) => new Uint8Array(element.toBER(false))));
    expect(Buffer.from(actual)).toEqual(Buffer.from(expected));
  });
});
