import { assertCrlReasonCode, CRL_REASON } from './crl-reason';
import { MAX_TIME_DER_LENGTH, writeTime } from './der-time';
import { DerChunkWriter, derObjectIdentifier, derOctetString, derSequence, TAG } from './der-writer';
import { EXTENSION_ID } from './extensions';

/** One revoked certificate of a CRL (RFC 5280 5.1.2.6). */
export interface RevokedCertificateEntry {
  /** As `serialToHex` gives it: hexadecimal magnitude, upper or lower case, at most 20 DER octets. */
  serialNumberHex: string;
  revocationDate: Date;
  /**
   * CRLReason (RFC 5280 5.3.1). 0 (unspecified) leaves the reasonCode entry extension out, as
   * 5.3.1 says it SHOULD be.
   */
  reasonCode: number;
}

// crlEntryExtensions holding only reasonCode, non-critical (5.3.1), without the last octet: the
// ENUMERATED value, written per entry.
const REASON_CODE_EXTENSIONS_PREFIX = derSequence(
  derSequence(
    derObjectIdentifier(EXTENSION_ID.reasonCode),
    derOctetString(Uint8Array.of(TAG.enumerated, 1, 0)),
  ),
).subarray(0, -1);
// RFC 5280 4.1.2.2: at most 20 content octets.
const MAX_SERIAL_OCTETS = 20;
// An entry SEQUENCE: header 2, serial 2 + 20, time 17, reason 14; always under 128 (short length).
const MAX_ENTRY_OCTETS =
  2 + 2 + MAX_SERIAL_OCTETS + MAX_TIME_DER_LENGTH + REASON_CODE_EXTENSIONS_PREFIX.length + 1;
const CHUNK_OCTETS = 1 << 20;
// Appending a few entries per CRL adds a small chunk each time; past this many they are joined.
const MAX_CHUNKS = 64;

/**
 * The contents of revokedCertificates (RFC 5280 5.1.2.6), already in DER, entry after entry. Only
 * `encode` makes them, so every octet comes from the checked encoder; `append` adds more without
 * encoding the earlier ones again, so an issuer can keep its entries between CRLs and encode only
 * the new revocations. Immutable: a CRL being built keeps the entries it started with.
 */
export class EncodedCrlEntries {
  static readonly none = new EncodedCrlEntries([], 0, 0);

  private constructor(
    /** The DER, in order, as chunks of at most about a megabyte. */
    readonly chunks: readonly Uint8Array[],
    readonly count: number,
    readonly byteLength: number,
  ) {}

  /**
   * Encodes each entry, in the order given (any iterable, read once), with a reasonCode extension
   * unless the reason is unspecified (5.3.1). Throws RangeError naming the first invalid entry.
   */
  static encode(entries: Iterable<RevokedCertificateEntry>): EncodedCrlEntries {
    // A few entries must not pin a megabyte each while they are kept.
    const sizeHint = Array.isArray(entries) ? Math.max(1, entries.length) * MAX_ENTRY_OCTETS : CHUNK_OCTETS;
    const writer = new DerChunkWriter(Math.min(CHUNK_OCTETS, sizeHint));
    let count = 0;
    for (const entry of entries) {
      const { target, offset } = writer.reserve(MAX_ENTRY_OCTETS);
      let at = offset + 2;
      try {
        at = writeSerialNumber(target, at, entry.serialNumberHex);
        at = writeTime(target, at, entry.revocationDate);
        if (entry.reasonCode !== CRL_REASON.unspecified) {
          assertCrlReasonCode(entry.reasonCode);
          target.set(REASON_CODE_EXTENSIONS_PREFIX, at);
          at += REASON_CODE_EXTENSIONS_PREFIX.length;
          target[at++] = entry.reasonCode;
        }
      } catch (error) {
        throw new RangeError(`CRL entry ${count}: ${(error as Error).message}`);
      }
      target[offset] = TAG.sequence;
      target[offset + 1] = at - offset - 2;
      writer.advance(at - offset);
      count++;
    }
    const byteLength = writer.length;
    return new EncodedCrlEntries(writer.finish(), count, byteLength);
  }

  /** These entries followed by `more`. */
  append(more: EncodedCrlEntries): EncodedCrlEntries {
    if (more.count === 0) return this;
    if (this.count === 0) return more;
    let chunks = [...this.chunks, ...more.chunks];
    if (chunks.length > MAX_CHUNKS) chunks = [joinChunks(chunks, this.byteLength + more.byteLength)];
    return new EncodedCrlEntries(chunks, this.count + more.count, this.byteLength + more.byteLength);
  }
}

function joinChunks(chunks: readonly Uint8Array[], byteLength: number): Uint8Array {
  const joined = new Uint8Array(byteLength);
  let offset = 0;
  for (const chunk of chunks) {
    joined.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return joined;
}

/**
 * userCertificate (RFC 5280 5.1.2.6, 4.1.2.2): the INTEGER for a hexadecimal serial, minimal, with
 * a 0x00 in front when the top bit is set; positive and at most 20 octets.
 */
function writeSerialNumber(target: Uint8Array, at: number, hex: string): number {
  if (typeof hex !== 'string') throw new RangeError('serialNumberHex must be a string');
  const end = hex.length;
  let first = 0;
  while (first < end && hex.charCodeAt(first) === 0x30) first++;
  const digits = end - first;
  if (digits === 0) throw new RangeError(`Serial number "${hex}" is not a positive hexadecimal number`);
  const odd = digits & 1;
  const octets = (digits + odd) >> 1;
  const top = odd ? nibble(hex, first) : (nibble(hex, first) << 4) | nibble(hex, first + 1);
  const pad = top & 0x80 ? 1 : 0;
  if (octets + pad > MAX_SERIAL_OCTETS) {
    throw new RangeError(`Serial number "${hex}" takes more than ${MAX_SERIAL_OCTETS} octets`);
  }
  target[at++] = TAG.integer;
  target[at++] = octets + pad;
  if (pad) target[at++] = 0;
  let i = first;
  if (odd) target[at++] = nibble(hex, i++);
  for (; i < end; i += 2) target[at++] = (nibble(hex, i) << 4) | nibble(hex, i + 1);
  return at;
}

function nibble(hex: string, index: number): number {
  const code = hex.charCodeAt(index);
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  const lower = code | 0x20;
  if (lower >= 0x61 && lower <= 0x66) return lower - 0x61 + 10;
  throw new RangeError(`Serial number "${hex}" is not hexadecimal`);
}
