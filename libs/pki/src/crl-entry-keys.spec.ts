import { encodeTbsCertList } from './crl.builder';
import { crlEntryKey, tbsCertListEntryKeys } from './crl-entry-keys';
import { createTestPki } from './testing';

describe('tbsCertListEntryKeys', () => {
  it('reads serial, revocation second and reason of every entry as crlEntryKey writes them', async () => {
    const pki = await createTestPki('Keys Root');
    const entries = [
      { serialNumberHex: '0A', revocationDate: new Date('2026-01-02T03:04:05.678Z'), reasonCode: 1 },
      { serialNumberHex: '80ff', revocationDate: new Date('2051-06-07T08:09:10Z'), reasonCode: 0 },
      {
        serialNumberHex: '00000123456789abcdef',
        revocationDate: new Date('1999-12-31T23:59:59Z'),
        reasonCode: 10,
      },
    ];
    const tbs = encodeTbsCertList({
      issuerCertificateDer: pki.caDer,
      crlNumber: 3n,
      thisUpdate: new Date(),
      nextUpdate: new Date(Date.now() + 60_000),
      entries,
    });
    expect(tbsCertListEntryKeys(tbs)).toEqual(
      entries.map((e) =>
        crlEntryKey(e.serialNumberHex, Math.floor(e.revocationDate.getTime() / 1000), e.reasonCode),
      ),
    );
    expect(tbsCertListEntryKeys(tbs)[0]).toBe('a:1767323045:1');
  });

  it('has no keys for a CRL without entries', async () => {
    const pki = await createTestPki('Keys Root');
    const tbs = encodeTbsCertList({
      issuerCertificateDer: pki.caDer,
      crlNumber: 1n,
      thisUpdate: new Date(),
      nextUpdate: new Date(Date.now() + 60_000),
      entries: [],
    });
    expect(tbsCertListEntryKeys(tbs)).toEqual([]);
  });
});
