import type { EncodedCrlEntries } from './crl-entries';
import { DerReader, readSingleElement } from './der-reader';
import { TAG } from './der-writer';

/**
 * Each revokedCertificates entry (RFC 5280 5.1.2.6) of a DER TBSCertList as one string of its DER
 * octets (latin1), to compare a CRL handed in for signing with the entries the signer would write
 * itself (`crlEntryKeysOf`): DER is canonical and `encodeTbsCertList` writes each entry one way
 * only (serial, revocation time to the second, reasonCode unless unspecified), so equal keys mean
 * the same serial, time and reason. Run `inspectTbsCertList` first: this walks the shape it checked.
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
  const entries = reader.inside(revoked);
  const keys: string[] = [];
  while (!entries.atEnd) {
    const entry = entries.read('entry', TAG.sequence);
    keys.push(bytes.toString('latin1', entry.start, entry.end));
  }
  return keys;
}

/** The entry keys (as `tbsCertListEntryKeys`) of entries encoded by `EncodedCrlEntries.encode`, in order. */
export function crlEntryKeysOf(entries: EncodedCrlEntries): string[] {
  const keys: string[] = [];
  for (const chunk of entries.chunks) {
    const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    // Each entry is a SEQUENCE with a short-form length (always under 128 octets) and never
    // straddles a chunk.
    for (let at = 0; at < bytes.length; at += 2 + bytes[at + 1]) {
      keys.push(bytes.toString('latin1', at, at + 2 + bytes[at + 1]));
    }
  }
  return keys;
}
