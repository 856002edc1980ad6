import { DerReader, readSingleElement } from './der-reader';
import { TAG } from './der-writer';
import { PkiFormatError } from './pki-format.error';

/**
 * One CRL entry as a comparable string: serial (lower-case hexadecimal, no leading zeros),
 * revocation time in whole seconds since the epoch, and the reason code written (0 when the
 * reasonCode extension is absent, RFC 5280 5.3.1). The ledger side builds the same key.
 */
export function crlEntryKey(serialHex: string, revokedAtSeconds: number, reasonCode: number): string {
  return `${serialHex.toLowerCase().replace(/^0+/, '')}:${revokedAtSeconds}:${reasonCode}`;
}

/**
 * The `crlEntryKey` of each revokedCertificates entry (RFC 5280 5.1.2.6) of a DER TBSCertList,
 * read in place without a Date or an object per entry (a CRL may hold 100,000), to compare a CRL
 * handed in for signing with the signer's own ledger. Run `inspectTbsCertList` first: this walks
 * the shape it checked (times of 13 or 15 digits ending in Z, at most a reasonCode extension).
 */
export function tbsCertListEntryKeys(tbs: Uint8Array): string[] {
  const outer = readSingleElement(tbs, 'TBSCertList', TAG.sequence);
  const reader = new DerReader(tbs, outer.contentStart, outer.end);
  reader.read('version', TAG.integer);
  reader.read('signature', TAG.sequence);
  reader.read('issuer', TAG.sequence);
  reader.read('thisUpdate');
  reader.read('nextUpdate');
  const revoked = reader.readOptional('revokedCertificates', TAG.sequence);
  if (!revoked) return [];
  const bytes = Buffer.from(tbs.buffer, tbs.byteOffset, tbs.byteLength);
  const keys: string[] = [];
  // Walked by hand, not with a DerReader per entry: a CRL may hold 100,000 of them, and each entry
  // (serial <= 21, time <= 17, reasonCode 15 octets, as the inspector checked) has short-form lengths.
  for (let at = revoked.contentStart; at < revoked.end;) {
    if (bytes[at] !== TAG.sequence || bytes[at + 1] & 0x80)
      throw new PkiFormatError('CRL entry: not a short SEQUENCE');
    const entryEnd = at + 2 + bytes[at + 1];
    let serialStart = at + 4; // SEQUENCE header, then INTEGER tag and length
    const serialEnd = serialStart + bytes[at + 3];
    while (serialStart < serialEnd - 1 && bytes[serialStart] === 0) serialStart++;
    let serialHex = bytes.toString('hex', serialStart, serialEnd);
    if (bytes[serialStart] < 0x10) serialHex = serialHex.slice(1);
    const seconds = timeSeconds(bytes, bytes[serialEnd], serialEnd + 2);
    const timeEnd = serialEnd + 2 + bytes[serialEnd + 1];
    // The reasonCode extension, when present, ends with its ENUMERATED value octet.
    const reason = timeEnd < entryEnd ? bytes[entryEnd - 1] : 0;
    keys.push(serialHex + ':' + seconds + ':' + reason);
    at = entryEnd;
  }
  if (keys.length === 0) throw new PkiFormatError('revokedCertificates: empty');
  return keys;
}

/** Seconds since the epoch of a UTCTime (YYMMDDHHMMSSZ, RFC 5280 4.1.2.5.1) or GeneralizedTime. */
function timeSeconds(bytes: Uint8Array, tag: number, at: number): number {
  const two = (i: number) => (bytes[i] - 0x30) * 10 + (bytes[i + 1] - 0x30);
  let year: number;
  if (tag === TAG.utcTime) {
    const yy = two(at);
    year = yy >= 50 ? 1900 + yy : 2000 + yy;
    at += 2;
  } else {
    year = two(at) * 100 + two(at + 2);
    at += 4;
  }
  return Date.UTC(year, two(at) - 1, two(at + 2), two(at + 4), two(at + 6), two(at + 8)) / 1000;
}
