import { EncodedCrlEntries, type RevokedCertificateEntry } from './crl-entries';
import { assembleCertificateList, encodeTbsCertList } from './crl.builder';
import { parseCrl } from './crl.parser';
import { signTbs } from './ecdsa-sig-value';
import { createTestPki, type TestPki } from './testing';

const thisUpdate = new Date('2026-11-22T10:00:00Z');
const nextUpdate = new Date('2026-11-23T10:00:00Z');

function entries(from: number, to: number): RevokedCertificateEntry[] {
  return Array.from({ length: to - from }, (_, i) => ({
    serialNumberHex: (0x7f00 + from + i).toString(16) + 'c3'.repeat(8),
    revocationDate: new Date(thisUpdate.getTime() - (from + i) * 1000),
    reasonCode: (from + i) % 3,
  }));
}

function joined(encoded: EncodedCrlEntries): Buffer {
  return Buffer.concat(encoded.chunks);
}

describe('EncodedCrlEntries', () => {
  let pki: TestPki;

  beforeAll(async () => {
    pki = await createTestPki('CRL Entries Test Root');
  });

  it('appended one revocation at a time, gives the same TBSCertList as encoding all at once', () => {
    let kept = EncodedCrlEntries.none;
    for (let i = 0; i < 200; i++) kept = kept.append(EncodedCrlEntries.encode(entries(i, i + 1)));
    const all = EncodedCrlEntries.encode(entries(0, 200));

    expect(kept.count).toBe(200);
    expect(kept.byteLength).toBe(all.byteLength);
    // Past 64 pieces they are joined, so a long-lived issuer does not collect thousands of them.
    expect(kept.chunks.length).toBeLessThanOrEqual(64);
    expect(joined(kept)).toEqual(joined(all));
    const profile = { issuerCertificateDer: pki.caDer, crlNumber: 3n, thisUpdate, nextUpdate };
    expect(Buffer.from(encodeTbsCertList({ ...profile, entries: kept }))).toEqual(
      Buffer.from(encodeTbsCertList({ ...profile, entries: entries(0, 200) })),
    );
  });

  it('lists kept entries in a signed CRL that parses, with their reasons', async () => {
    const kept = EncodedCrlEntries.encode(entries(0, 2)).append(EncodedCrlEntries.encode(entries(2, 3)));
    const tbs = encodeTbsCertList({
      issuerCertificateDer: pki.caDer,
      crlNumber: 1n,
      thisUpdate,
      nextUpdate,
      entries: kept,
    });
    const crl = parseCrl(assembleCertificateList(tbs, await signTbs(tbs, pki.caKeys.privateKey)));
    expect(crl.entries.map((e) => [e.serialNumberHex.toLowerCase(), e.reasonCode])).toEqual(
      entries(0, 3).map((e) => [e.serialNumberHex, e.reasonCode]),
    );
  });

  it('writes no revokedCertificates for kept entries that are none (RFC 5280 5.1.2.6)', () => {
    const profile = { issuerCertificateDer: pki.caDer, crlNumber: 1n, thisUpdate, nextUpdate };
    expect(EncodedCrlEntries.none.append(EncodedCrlEntries.encode([]))).toBe(EncodedCrlEntries.none);
    expect(Buffer.from(encodeTbsCertList({ ...profile, entries: EncodedCrlEntries.none }))).toEqual(
      Buffer.from(encodeTbsCertList({ ...profile, entries: [] })),
    );
  });

  it('does not change when more are appended (a CRL being built keeps what it started with)', () => {
    const first = EncodedCrlEntries.encode(entries(0, 2));
    const before = joined(first);
    const both = first.append(EncodedCrlEntries.encode(entries(2, 4)));
    expect(first.count).toBe(2);
    expect(joined(first)).toEqual(before);
    expect(both.count).toBe(4);
  });

  it('keeps a few entries in a few octets, not in a megabyte chunk each', () => {
    const one = EncodedCrlEntries.encode(entries(0, 1));
    expect(one.chunks[0].buffer.byteLength).toBeLessThan(100);
  });

  it('refuses an invalid entry, naming it', () => {
    const bad = [...entries(0, 2), { serialNumberHex: 'xyz', revocationDate: thisUpdate, reasonCode: 1 }];
    expect(() => EncodedCrlEntries.encode(bad)).toThrow(/CRL entry 2: .*not hexadecimal/);
    expect(() =>
      EncodedCrlEntries.encode([{ serialNumberHex: '01', revocationDate: thisUpdate, reasonCode: 7 }]),
    ).toThrow(RangeError);
  });
});
