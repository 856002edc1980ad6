/**
 * A minimal DER writer (X.690 section 10): tag, definite length, contents. The CRL and OCSP
 * encoders write their structures through it instead of building one asn1js object per element,
 * which is what lets a CRL of a million entries be encoded in well under a second.
 */

/** Universal and context-specific tags used by the CRL and OCSP structures (X.680 8.4). */
export const TAG = {
  boolean: 0x01,
  integer: 0x02,
  bitString: 0x03,
  octetString: 0x04,
  null: 0x05,
  objectIdentifier: 0x06,
  enumerated: 0x0a,
  utcTime: 0x17,
  generalizedTime: 0x18,
  sequence: 0x30,
  set: 0x31,
} as const;

/** [n] IMPLICIT of a primitive type: context-specific class, primitive (X.690 8.1.2). */
export function contextPrimitive(tagNumber: number): number {
  return 0x80 | tagNumber;
}

/** [n] EXPLICIT, or [n] IMPLICIT of a constructed type: context-specific class, constructed. */
export function contextConstructed(tagNumber: number): number {
  return 0xa0 | tagNumber;
}

/** Octets the definite length takes: X.690 10.1, the short form below 128, else minimal long form. */
export function derLengthSize(length: number): number {
  if (length < 0x80) return 1;
  if (length < 0x100) return 2;
  if (length < 0x10000) return 3;
  if (length < 0x1000000) return 4;
  return 5;
}

/** Writes the definite length of X.690 8.1.3 at `offset`; returns the offset after it. */
export function writeDerLength(target: Uint8Array, offset: number, length: number): number {
  if (!Number.isSafeInteger(length) || length < 0 || length > 0xffffffff) {
    throw new RangeError(`A DER length must be 0 to 2^32-1, not ${length}`);
  }
  const size = derLengthSize(length);
  if (size === 1) {
    target[offset] = length;
    return offset + 1;
  }
  target[offset] = 0x80 | (size - 1);
  for (let i = size - 1; i >= 1; i--) {
    target[offset + i] = length & 0xff;
    length = Math.floor(length / 256);
  }
  return offset + size;
}

/** Identifier and length octets of an element of `length` content octets (one-octet tags only). */
export function derHeader(tag: number, length: number): Uint8Array {
  const header = new Uint8Array(1 + derLengthSize(length));
  header[0] = tag;
  writeDerLength(header, 1, length);
  return header;
}

/** One DER element: `tag`, the length, then `contents` (each already encoded) copied in order. */
export function derElement(tag: number, ...contents: readonly Uint8Array[]): Uint8Array {
  let length = 0;
  for (const part of contents) length += part.byteLength;
  const element = new Uint8Array(1 + derLengthSize(length) + length);
  element[0] = tag;
  let offset = writeDerLength(element, 1, length);
  for (const part of contents) {
    element.set(part, offset);
    offset += part.byteLength;
  }
  return element;
}

/** SEQUENCE (X.690 8.9) around already-encoded elements. */
export function derSequence(...elements: readonly Uint8Array[]): Uint8Array {
  return derElement(TAG.sequence, ...elements);
}

/** OCTET STRING (X.690 8.7), primitive. */
export function derOctetString(value: Uint8Array): Uint8Array {
  return derElement(TAG.octetString, value);
}

/** NULL (X.690 8.8). */
export function derNull(): Uint8Array {
  return Uint8Array.of(TAG.null, 0);
}

/** BIT STRING (X.690 8.6) of whole octets: no unused bits. */
export function derBitString(octets: Uint8Array): Uint8Array {
  return derElement(TAG.bitString, Uint8Array.of(0), octets);
}

/** ENUMERATED (X.690 8.4) of a small non-negative value. */
export function derEnumerated(value: number): Uint8Array {
  if (!Number.isInteger(value) || value < 0 || value > 127) {
    throw new RangeError(`ENUMERATED value ${value} is not 0 to 127`);
  }
  return Uint8Array.of(TAG.enumerated, 1, value);
}

/**
 * INTEGER (X.690 8.3) of a non-negative value, in the fewest octets: two's complement, so a value
 * whose top bit would be set gets a leading 0x00.
 */
export function derUnsignedInteger(value: bigint): Uint8Array {
  return derElement(TAG.integer, unsignedIntegerContents(value));
}

/** The content octets of `derUnsignedInteger`. */
export function unsignedIntegerContents(value: bigint): Uint8Array {
  if (value < 0n) throw new RangeError('Expected a non-negative integer');
  let hex = value.toString(16);
  if (hex.length % 2) hex = `0${hex}`;
  if (parseInt(hex.slice(0, 2), 16) & 0x80) hex = `00${hex}`;
  return new Uint8Array(Buffer.from(hex, 'hex'));
}

/**
 * INTEGER from big-endian magnitude octets (an unsigned number, as WebCrypto gives the r and s of an
 * ECDSA signature): leading zero octets dropped, one 0x00 put back when the top bit is set.
 */
export function derUnsignedIntegerFromOctets(magnitude: Uint8Array): Uint8Array {
  let start = 0;
  while (start < magnitude.length - 1 && magnitude[start] === 0) start++;
  const trimmed = magnitude.subarray(start);
  if (trimmed.length === 0) return Uint8Array.of(TAG.integer, 1, 0);
  return trimmed[0] & 0x80
    ? derElement(TAG.integer, Uint8Array.of(0), trimmed)
    : derElement(TAG.integer, trimmed);
}

/** OBJECT IDENTIFIER (X.690 8.19) from its dotted form. */
export function derObjectIdentifier(oid: string): Uint8Array {
  const arcs = oid.split('.').map((arc) => {
    if (!/^(0|[1-9]\d*)$/.test(arc)) throw new RangeError(`Not a dotted object identifier: "${oid}"`);
    return BigInt(arc);
  });
  if (arcs.length < 2 || arcs[0] > 2n || (arcs[0] < 2n && arcs[1] > 39n)) {
    throw new RangeError(`Not a dotted object identifier: "${oid}"`);
  }
  const octets: number[] = [];
  for (const arc of [arcs[0] * 40n + arcs[1], ...arcs.slice(2)]) {
    const base128 = [Number(arc & 0x7fn)];
    for (let rest = arc >> 7n; rest > 0n; rest >>= 7n) base128.unshift(Number(rest & 0x7fn) | 0x80);
    octets.push(...base128);
  }
  return derElement(TAG.objectIdentifier, Uint8Array.from(octets));
}

/**
 * A constructed element whose octets are written later, all at once, by `encodeDerTree`: a nested
 * structure (an OCSP response) is built as a tree of these and costs one allocation instead of one
 * per level. `length` is the contents' length, known as soon as the node is made.
 */
export interface DerNode {
  readonly tag: number;
  readonly parts: readonly DerPart[];
  readonly length: number;
}
/** Already-encoded octets (one or more whole elements), or a node to encode. */
export type DerPart = Uint8Array | DerNode;

/** A node of `tag` around `parts`, in order. */
export function derNode(tag: number, ...parts: readonly DerPart[]): DerNode {
  let length = 0;
  for (const part of parts) length += derPartSize(part);
  return { tag, parts, length };
}

/** The octets `part` takes once encoded. */
export function derPartSize(part: DerPart): number {
  return isOctets(part) ? part.byteLength : 1 + derLengthSize(part.length) + part.length;
}

/** Octets rather than a node; `ArrayBuffer.isView` holds for a Buffer or a Uint8Array of any realm. */
export function isOctets(part: DerPart): part is Uint8Array {
  return ArrayBuffer.isView(part);
}

/** The DER octets of a tree of nodes, in one array of exactly the right size. */
export function encodeDerTree(part: DerPart): Uint8Array {
  if (isOctets(part)) return new Uint8Array(part);
  const target = new Uint8Array(derPartSize(part));
  writeDerTree(target, 0, part);
  return target;
}

function writeDerTree(target: Uint8Array, offset: number, part: DerPart): number {
  if (isOctets(part)) {
    target.set(part, offset);
    return offset + part.byteLength;
  }
  target[offset] = part.tag;
  offset = writeDerLength(target, offset + 1, part.length);
  for (const child of part.parts) offset = writeDerTree(target, offset, child);
  return offset;
}

/**
 * Output written in fixed-size chunks, for encodings too large to build by concatenation (a CRL of
 * a million entries). Memory is the bytes written plus at most one partly used chunk.
 */
export class DerChunkWriter {
  private readonly chunks: Uint8Array[] = [];
  private chunk: Uint8Array;
  private offset = 0;
  private written = 0;

  constructor(private readonly chunkSize = 1 << 20) {
    this.chunk = new Uint8Array(chunkSize);
  }

  /** Total octets written so far. */
  get length(): number {
    return this.written + this.offset;
  }

  /**
   * Room for `size` more octets in one contiguous block: the current chunk and the offset to write
   * at; call `advance` with the octets actually written.
   */
  reserve(size: number): { target: Uint8Array; offset: number } {
    if (this.offset + size > this.chunk.length) {
      this.flush();
      this.chunk = new Uint8Array(Math.max(this.chunkSize, size));
    }
    return { target: this.chunk, offset: this.offset };
  }

  advance(size: number): void {
    this.offset += size;
  }

  /** The written octets, in order, as views of the chunks; the writer is finished after this. */
  finish(): Uint8Array[] {
    this.flush();
    this.chunk = new Uint8Array(0);
    return this.chunks;
  }

  private flush(): void {
    if (this.offset > 0) this.chunks.push(this.chunk.subarray(0, this.offset));
    this.written += this.offset;
    this.offset = 0;
  }
}
