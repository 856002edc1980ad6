import * as asn1js from 'asn1js';

import {
  contextConstructed,
  contextPrimitive,
  DerChunkWriter,
  derElement,
  derEnumerated,
  derHeader,
  derNode,
  derObjectIdentifier,
  derPartSize,
  derSequence,
  derUnsignedInteger,
  derUnsignedIntegerFromOctets,
  encodeDerTree,
  TAG,
  writeDerLength,
} from './der-writer';

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const asn1 = (block: asn1js.BaseBlock) => hex(new Uint8Array(block.toBER(false)));

describe('DER writer (X.690 section 10)', () => {
  it.each([
    [0, '00'],
    [127, '7f'],
    [128, '8180'],
    [255, '81ff'],
    [256, '820100'],
    [65_535, '82ffff'],
    [65_536, '83010000'],
    [16_777_216, '8401000000'],
  ])('writes the length %i as %s', (length, expected) => {
    const target = new Uint8Array(5);
    const end = writeDerLength(target, 0, length);
    expect(hex(target.subarray(0, end))).toBe(expected);
    expect(hex(derHeader(0x30, length))).toBe(`30${expected}`);
  });

  it('refuses lengths that do not fit', () => {
    expect(() => writeDerLength(new Uint8Array(6), 0, -1)).toThrow(RangeError);
    expect(() => writeDerLength(new Uint8Array(6), 0, 2 ** 32)).toThrow(RangeError);
  });

  it('writes elements as asn1js does', () => {
    const octets = new asn1js.OctetString({ valueHex: new Uint8Array(200).fill(9) });
    expect(hex(derSequence(new Uint8Array(octets.toBER(false)), Uint8Array.of(5, 0)))).toBe(
      asn1(new asn1js.Sequence({ value: [octets, new asn1js.Null()] })),
    );
    expect(hex(derEnumerated(6))).toBe(asn1(new asn1js.Enumerated({ value: 6 })));
    expect(() => derEnumerated(128)).toThrow(RangeError);
  });

  it.each([
    [0n, '020100'],
    [127n, '02017f'],
    [128n, '02020080'],
    [256n, '02020100'],
    [2n ** 64n, '0209010000000000000000'],
    [2n ** 159n - 1n, `0214${'7f'}${'ff'.repeat(19)}`],
    [2n ** 159n, `021500${'80'}${'00'.repeat(19)}`],
  ])('writes the non-negative INTEGER %s minimally', (value, expected) => {
    expect(hex(derUnsignedInteger(value))).toBe(expected);
  });

  it('writes an INTEGER from unsigned magnitude octets, as for ECDSA r and s', () => {
    expect(hex(derUnsignedIntegerFromOctets(Uint8Array.of(0, 0, 0x7f)))).toBe('02017f');
    expect(hex(derUnsignedIntegerFromOctets(Uint8Array.of(0, 0x80, 1)))).toBe('0203008001');
    expect(hex(derUnsignedIntegerFromOctets(Uint8Array.of(0, 0)))).toBe('020100');
    expect(() => derUnsignedInteger(-1n)).toThrow(RangeError);
  });

  it.each(['1.2.840.10045.4.3.2', '2.5.29.20', '1.3.6.1.5.5.7.48.1.2', '2.999.1', '0.39'])(
    'writes the OBJECT IDENTIFIER %s as asn1js does',
    (oid) => {
      expect(hex(derObjectIdentifier(oid))).toBe(asn1(new asn1js.ObjectIdentifier({ value: oid })));
    },
  );

  it.each(['1', '3.1', '1.40', '1.2.03', '1..2', 'a.b'])('refuses the object identifier "%s"', (oid) => {
    expect(() => derObjectIdentifier(oid)).toThrow(RangeError);
  });

  it('encodes a tree of nodes in one go, with the same octets as nested elements', () => {
    const big = new Uint8Array(300).fill(1);
    const nested = derSequence(
      derElement(contextConstructed(0), derElement(TAG.octetString, big)),
      Uint8Array.of(contextPrimitive(2), 0),
    );
    const tree = derNode(
      TAG.sequence,
      derNode(contextConstructed(0), derNode(TAG.octetString, big)),
      Uint8Array.of(contextPrimitive(2), 0),
    );
    expect(derPartSize(tree)).toBe(nested.byteLength);
    expect(hex(encodeDerTree(tree))).toBe(hex(nested));
  });

  it('collects output in chunks, with blocks that never straddle two', () => {
    const writer = new DerChunkWriter(8);
    for (let i = 0; i < 5; i++) {
      const { target, offset } = writer.reserve(3);
      target.set([i, i, i], offset);
      writer.advance(3);
    }
    expect(writer.length).toBe(15);
    const chunks = writer.finish();
    expect(chunks.map((chunk) => chunk.length)).toEqual([6, 6, 3]);
    expect(hex(Buffer.concat(chunks))).toBe('000000010101020202030303040404');
  });
});
