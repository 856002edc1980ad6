import { PkiFormatError } from './pki-format.error';

/** Where one element lies in the input: identifier octet at `start`, contents up to `end`. */
export interface DerElement {
  readonly tag: number;
  readonly start: number;
  readonly contentStart: number;
  readonly end: number;
}

/**
 * A strict DER reader (X.690 section 10) over a byte array: one-octet tags, definite lengths in
 * their minimal form, every element inside its parent. It hands out offsets, not copies or
 * objects per value, so that walking a CRL of a million entries allocates next to nothing.
 * Everything it rejects throws `PkiFormatError`.
 */
export class DerReader {
  private position: number;

  constructor(
    readonly bytes: Uint8Array,
    start = 0,
    readonly end = bytes.byteLength,
  ) {
    this.position = start;
  }

  get atEnd(): boolean {
    return this.position >= this.end;
  }

  /** The tag of the next element, or undefined at the end. */
  peekTag(): number | undefined {
    return this.atEnd ? undefined : this.bytes[this.position];
  }

  /** The next element; with `expectedTag`, it must have that tag. `what` names it in errors. */
  read(what: string, expectedTag?: number): DerElement {
    const { bytes, end } = this;
    const start = this.position;
    if (start >= end) throw new PkiFormatError(`${what}: missing`);
    const tag = bytes[start];
    if (expectedTag !== undefined && tag !== expectedTag) {
      throw new PkiFormatError(`${what}: expected tag 0x${hex2(expectedTag)}, found 0x${hex2(tag)}`);
    }
    if ((tag & 0x1f) === 0x1f) throw new PkiFormatError(`${what}: multi-octet tags are not expected`);
    if (start + 1 >= end) throw new PkiFormatError(`${what}: truncated before its length`);
    let offset = start + 1;
    const first = bytes[offset++];
    let length: number;
    if (first < 0x80) {
      length = first;
    } else {
      const count = first & 0x7f;
      if (count === 0) throw new PkiFormatError(`${what}: indefinite length is not DER`);
      if (count > 4) throw new PkiFormatError(`${what}: length of ${count} octets is too large`);
      if (offset + count > end) throw new PkiFormatError(`${what}: truncated in its length`);
      if (bytes[offset] === 0) throw new PkiFormatError(`${what}: length is not minimally encoded`);
      length = 0;
      for (let i = 0; i < count; i++) length = length * 256 + bytes[offset++];
      if (length < 0x80) throw new PkiFormatError(`${what}: length is not minimally encoded`);
    }
    if (offset + length > end) {
      throw new PkiFormatError(`${what}: truncated (${length} content octets announced)`);
    }
    this.position = offset + length;
    return { tag, start, contentStart: offset, end: offset + length };
  }

  /** The next element if it has `tag`, else undefined (nothing consumed). */
  readOptional(what: string, tag: number): DerElement | undefined {
    return this.peekTag() === tag ? this.read(what, tag) : undefined;
  }

  /** A reader over the contents of a constructed element. */
  inside(element: DerElement): DerReader {
    return new DerReader(this.bytes, element.contentStart, element.end);
  }

  /** Throws unless every octet up to the end has been read. */
  expectEnd(what: string): void {
    if (!this.atEnd) {
      throw new PkiFormatError(`${what}: unexpected element (tag 0x${hex2(this.bytes[this.position])})`);
    }
  }

  /** A view of an element's content octets. */
  contents(element: DerElement): Uint8Array {
    return this.bytes.subarray(element.contentStart, element.end);
  }

  /** A view of an element's whole encoding: identifier, length and contents. */
  encoding(element: DerElement): Uint8Array {
    return this.bytes.subarray(element.start, element.end);
  }

  /**
   * A copy of an element's content octets in a plain Uint8Array, to hand out without keeping the
   * input alive (`slice` would not copy when the input is a Node.js Buffer).
   */
  copyContents(element: DerElement): Uint8Array {
    return new Uint8Array(this.contents(element));
  }

  /** A copy of an element's whole encoding in a plain Uint8Array. */
  copyEncoding(element: DerElement): Uint8Array {
    return new Uint8Array(this.encoding(element));
  }
}

/** A reader over the one element that `der` must be, with nothing after it. */
export function readSingleElement(der: Uint8Array, what: string, expectedTag?: number): DerElement {
  const reader = new DerReader(der);
  const element = reader.read(what, expectedTag);
  if (!reader.atEnd) throw new PkiFormatError(`${what}: trailing octets after it`);
  return element;
}

/** The dotted form of OBJECT IDENTIFIER content octets (X.690 8.19), base-128 arcs, minimal. */
export function decodeObjectIdentifier(contents: Uint8Array, what = 'OBJECT IDENTIFIER'): string {
  if (contents.length === 0) throw new PkiFormatError(`${what}: empty`);
  if (contents[contents.length - 1] & 0x80) throw new PkiFormatError(`${what}: truncated arc`);
  const arcs: string[] = [];
  let value = 0n;
  let startOfArc = true;
  for (const octet of contents) {
    if (startOfArc && octet === 0x80) throw new PkiFormatError(`${what}: arc is not minimally encoded`);
    value = (value << 7n) | BigInt(octet & 0x7f);
    startOfArc = !(octet & 0x80);
    if (!startOfArc) continue;
    if (arcs.length === 0) {
      const first = value < 40n ? 0n : value < 80n ? 1n : 2n;
      arcs.push(first.toString(), (value - first * 40n).toString());
    } else {
      arcs.push(value.toString());
    }
    value = 0n;
  }
  return arcs.join('.');
}

/**
 * The value of INTEGER content octets that must be non-negative and minimally encoded (X.690
 * 8.3.2), as for a CRL number.
 */
export function decodeUnsignedInteger(contents: Uint8Array, what = 'INTEGER'): bigint {
  assertMinimalInteger(contents, what);
  if (contents[0] & 0x80) throw new PkiFormatError(`${what}: negative`);
  let value = 0n;
  for (const octet of contents) value = (value << 8n) | BigInt(octet);
  return value;
}

/** X.690 8.3.2: at least one octet, and the first nine bits not all zeros or all ones. */
export function assertMinimalInteger(contents: Uint8Array, what = 'INTEGER'): void {
  if (contents.length === 0) throw new PkiFormatError(`${what}: no content octets`);
  if (
    contents.length > 1 &&
    ((contents[0] === 0 && !(contents[1] & 0x80)) || (contents[0] === 0xff && contents[1] & 0x80))
  ) {
    throw new PkiFormatError(`${what}: not minimally encoded`);
  }
}

function hex2(octet: number): string {
  return octet.toString(16).padStart(2, '0');
}
