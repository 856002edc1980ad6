import * as asn1js from 'asn1js';

import {
  assertMinimalInteger,
  decodeObjectIdentifier,
  decodeUnsignedInteger,
  DerReader,
  readSingleElement,
} from './der-reader';
import { derObjectIdentifier, TAG } from './der-writer';
import { PkiFormatError } from './pki-format.error';

const bytes = (hex: string) => new Uint8Array(Buffer.from(hex.replace(/\s/g, ''), 'hex'));

describe('DerReader', () => {
  it('walks nested elements by offsets', () => {
    // SEQUENCE { INTEGER 5, OCTET STRING 'ab', [0] { NULL } }
    const der = bytes('300b 020105 0402abcd a0020500');
    const outer = readSingleElement(der, 'outer', TAG.sequence);
    expect(outer).toEqual({ tag: 0x30, start: 0, contentStart: 2, end: 13 });
    const reader = new DerReader(der, outer.contentStart, outer.end);
    expect(reader.contents(reader.read('integer', TAG.integer))).toEqual(bytes('05'));
    expect(reader.readOptional('missing', TAG.boolean)).toBeUndefined();
    expect(reader.contents(reader.read('octets', TAG.octetString))).toEqual(bytes('abcd'));
    const tagged = reader.read('tagged', 0xa0);
    expect(reader.encoding(tagged)).toEqual(bytes('a0020500'));
    const inner = reader.inside(tagged);
    expect(inner.read('null', TAG.null).end).toBe(13);
    expect(inner.atEnd).toBe(true);
    reader.expectEnd('outer');
    expect(reader.peekTag()).toBeUndefined();
  });

  it('reads long-form lengths', () => {
    const der = new Uint8Array(4 + 300);
    der.set(bytes('04 82 012c'));
    expect(readSingleElement(der, 'octets', TAG.octetString)).toEqual({
      tag: 4,
      start: 0,
      contentStart: 4,
      end: 304,
    });
  });

  it.each([
    ['empty input', ''],
    ['a wrong tag', '020100'],
    ['an indefinite length', '3080 0000'],
    ['a length in five octets', '30 85 0000000001 00'],
    ['a non-minimal long form', '30 81 05 0000000000'],
    ['a non-minimal long form with a leading zero', '30 82 0080' + '00'.repeat(128)],
    ['a multi-octet tag', '1f 01 00'],
    ['a truncated length', '30 82 01'],
    ['truncated contents', '30 05 0000'],
    ['no length at all', '30'],
    ['trailing octets', '3000 00'],
  ])('throws PkiFormatError for %s', (_case, hex) => {
    expect(() => readSingleElement(bytes(hex), 'element', TAG.sequence)).toThrow(PkiFormatError);
  });

  it('keeps children inside their parent', () => {
    // The SEQUENCE claims 3 content octets, the INTEGER inside claims 5.
    const der = bytes('3003 0205 01 0203040506');
    const reader = new DerReader(der, 2, 5);
    expect(() => reader.read('integer', TAG.integer)).toThrow(/truncated/);
  });

  it('names what it expected in its errors', () => {
    expect(() => readSingleElement(bytes('0500'), 'TBSCertList', TAG.sequence)).toThrow(
      'TBSCertList: expected tag 0x30, found 0x05',
    );
    const reader = new DerReader(bytes('05000500'));
    reader.read('first');
    expect(() => reader.expectEnd('list')).toThrow('list: unexpected element (tag 0x05)');
  });
});

describe('decodeObjectIdentifier', () => {
  it.each([
    '1.2.840.10045.4.3.2',
    '2.5.29.35',
    '0.9.2342.19200300.100.1.25',
    '2.999.3',
    '1.3.6.1.4.1.99999.2.1',
  ])('reads %s back', (oid) => {
    const der = derObjectIdentifier(oid);
    expect(decodeObjectIdentifier(der.subarray(2))).toBe(oid);
    expect(new asn1js.ObjectIdentifier({ value: oid }).toBER(false).byteLength).toBe(der.byteLength);
  });

  it('rejects empty, truncated and non-minimal arcs', () => {
    expect(() => decodeObjectIdentifier(new Uint8Array(0))).toThrow(PkiFormatError);
    expect(() => decodeObjectIdentifier(bytes('2a86'))).toThrow(PkiFormatError);
    expect(() => decodeObjectIdentifier(bytes('2a8001'))).toThrow(PkiFormatError);
  });
});

describe('INTEGER contents', () => {
  it('decodes non-negative minimal values', () => {
    expect(decodeUnsignedInteger(bytes('00'))).toBe(0n);
    expect(decodeUnsignedInteger(bytes('0080'))).toBe(128n);
    expect(decodeUnsignedInteger(bytes('7f' + 'ff'.repeat(19)))).toBe(2n ** 159n - 1n);
  });

  it('rejects negative, empty and non-minimal values', () => {
    expect(() => decodeUnsignedInteger(bytes('80'))).toThrow(/negative/);
    expect(() => decodeUnsignedInteger(new Uint8Array(0))).toThrow(PkiFormatError);
    expect(() => assertMinimalInteger(bytes('0001'))).toThrow(/minimally/);
    expect(() => assertMinimalInteger(bytes('ff80'))).toThrow(/minimally/);
    expect(() => assertMinimalInteger(bytes('ff7f'))).not.toThrow();
  });
});
