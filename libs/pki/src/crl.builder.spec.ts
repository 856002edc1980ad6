import { createPublicKey, verify, type webcrypto } from 'node:crypto';

import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';

import { parseCertificate } from './certificate.parser';
import {
  assembleCertificateList,
  type CrlProfile,
  encodeTbsCertList,
  type RevokedCertificateEntry,
} from './crl.builder';
import { parseCrl } from './crl.parser';
import { pkiCrypto } from './crypto-engine';
import { exportSpkiDer } from './ec-key-pair';
import { signTbs } from './ecdsa-sig-value';
import { basicConstraintsExtension, keyUsageExtension } from './extensions';
import { encodeName } from './name';
import { PkiFormatError } from './pki-format.error';
import { inspectTbsCertList } from './tbs-cert-list.inspector';
import { readTbsCertificateFields } from './tbs-certificate.reader';
import { createTestPki, type TestPki } from './testing';
import { encodeTime } from './validity-time';

const thisUpdate = new Date('2026-11-22T10:00:00Z');
const nextUpdate = new Date('2026-11-29T10:00:00Z');

describe('encodeTbsCertList', () => {
  let pki: TestPki;
  let caSkiHex: string;
  const profile = (overrides: Partial<CrlProfile> = {}): CrlProfile => ({
    issuerCertificateDer: pki.caDer,
    crlNumber: 7n,
    thisUpdate,
    nextUpdate,
    entries: [],
    ...overrides,
  });
  /** The CRL signed by the test CA and read back by pkijs. */
  const signedCrl = async (tbs: Uint8Array) =>
    assembleCertificateList(tbs, await signTbs(tbs, pki.caKeys.privateKey));

  beforeAll(async () => {
    pki = await createTestPki('CRL Test Root');
    caSkiHex = parseCertificate(pki.caDer).subjectKeyIdentifierHex!;
  });

  it('writes an empty CRL without revokedCertificates (RFC 5280 5.1.2.6)', async () => {
    const crl = await signedCrl(encodeTbsCertList(profile()));
    const decoded = pkijs.CertificateRevocationList.fromBER(crl);
    expect(decoded.version).toBe(1); // v2
    expect(decoded.revokedCertificates).toBeUndefined();
    expect(decoded.signature.algorithmId).toBe('1.2.840.10045.4.3.2');
    expect(decoded.signature.algorithmParams).toBeUndefined();
    expect(parseCrl(crl)).toEqual({
      crlNumber: 7n,
      thisUpdate,
      nextUpdate,
      issuer: { country: 'US', organization: 'Acme', commonName: 'CRL Test Root' },
      authorityKeyIdentifierHex: caSkiHex,
      entries: [],
    });
  });

  it('round-trips entries with and without reasons, in the order given', async () => {
    const entries: RevokedCertificateEntry[] = [
      { serialNumberHex: '01', revocationDate: new Date('2026-11-20T08:00:00Z'), reasonCode: 1 },
      {
        serialNumberHex: '7F' + 'AB'.repeat(15),
        revocationDate: new Date('2026-11-21T08:00:00Z'),
        reasonCode: 0,
      },
      { serialNumberHex: '00ff10', revocationDate: new Date('2026-11-21T09:00:00.750Z'), reasonCode: 4 },
      {
        serialNumberHex: '7' + 'f'.repeat(39),
        revocationDate: new Date('2026-11-21T10:00:00Z'),
        reasonCode: 10,
      },
      {
        serialNumberHex: '8' + '0'.repeat(37),
        revocationDate: new Date('2026-11-21T11:00:00Z'),
        reasonCode: 6,
      },
    ];
    const { entries: read } = parseCrl(await signedCrl(encodeTbsCertList(profile({ entries }))));
    expect(read).toEqual([
      { serialNumberHex: '01', revocationDate: new Date('2026-11-20T08:00:00Z'), reasonCode: 1 },
      {
        serialNumberHex: '7F' + 'AB'.repeat(15),
        revocationDate: new Date('2026-11-21T08:00:00Z'),
        reasonCode: 0,
      },
      // Normalised as serialToHex prints it; milliseconds dropped (RFC 5280 5.1.2.6 / 4.1.2.5.1).
      { serialNumberHex: 'FF10', revocationDate: new Date('2026-11-21T09:00:00Z'), reasonCode: 4 },
      {
        serialNumberHex: '7' + 'F'.repeat(39),
        revocationDate: new Date('2026-11-21T10:00:00Z'),
        reasonCode: 10,
      },
      {
        serialNumberHex: '8' + '0'.repeat(37),
        revocationDate: new Date('2026-11-21T11:00:00Z'),
        reasonCode: 6,
      },
    ]);
  });

  it('leaves the reasonCode extension out for unspecified and writes it non-critical otherwise', async () => {
    const tbs = encodeTbsCertList(
      profile({
        entries: [
          { serialNumberHex: '0A', revocationDate: thisUpdate, reasonCode: 0 },
          { serialNumberHex: '0B', revocationDate: thisUpdate, reasonCode: 1 },
        ],
      }),
    );
    const [unspecified, keyCompromise] = pkijs.CertificateRevocationList.fromBER(
      await signedCrl(tbs),
    ).revokedCertificates!;
    expect(unspecified.crlEntryExtensions).toBeUndefined();
    const [reason] = keyCompromise.crlEntryExtensions!.extensions;
    expect(reason.extnID).toBe('2.5.29.21');
    expect(reason.critical).toBe(false);
    expect(reason.parsedValue).toBeInstanceOf(asn1js.Enumerated);
  });

  it('writes times from 2050 as GeneralizedTime and earlier ones as UTCTime (RFC 5280 5.1.2.4)', async () => {
    const later = new Date('2051-01-01T00:00:00Z');
    const crl = await signedCrl(
      encodeTbsCertList(
        profile({
          thisUpdate: new Date('2049-12-31T23:59:59Z'),
          nextUpdate: new Date('2050-01-07T00:00:00Z'),
          entries: [{ serialNumberHex: '0C', revocationDate: later, reasonCode: 5 }],
        }),
      ),
    );
    const decoded = pkijs.CertificateRevocationList.fromBER(crl);
    expect(decoded.thisUpdate.type).toBe(pkijs.TimeType.UTCTime);
    expect(decoded.nextUpdate!.type).toBe(pkijs.TimeType.GeneralizedTime);
    expect(decoded.revokedCertificates![0].revocationDate.type).toBe(pkijs.TimeType.GeneralizedTime);
    const info = parseCrl(crl);
    expect(info.thisUpdate).toEqual(new Date('2049-12-31T23:59:59Z'));
    expect(info.nextUpdate).toEqual(new Date('2050-01-07T00:00:00Z'));
    expect(info.entries[0].revocationDate).toEqual(later);
  });

  it("copies the issuer's subject byte for byte and names its key in the AKI (RFC 5280 5.2.1)", () => {
    const summary = inspectTbsCertList(encodeTbsCertList(profile()));
    expect(Buffer.from(summary.issuerDer)).toEqual(
      Buffer.from(readTbsCertificateFields(pki.caDer).subjectDer),
    );
    expect(summary.authorityKeyIdentifierHex).toBe(caSkiHex);
    expect(summary.thisUpdate).toEqual(thisUpdate);
    expect(summary.nextUpdate).toEqual(nextUpdate);
  });

  it.each([0n, 1n, 255n, 2n ** 64n, 2n ** 159n - 1n])(
    'writes the CRL number %s (RFC 5280 5.2.3)',
    async (crlNumber) => {
      const tbs = encodeTbsCertList(profile({ crlNumber }));
      expect(inspectTbsCertList(tbs).crlNumber).toBe(crlNumber);
      expect(parseCrl(await signedCrl(tbs)).crlNumber).toBe(crlNumber);
    },
  );

  it('refuses CRL numbers that are negative or longer than 20 octets', () => {
    expect(() => encodeTbsCertList(profile({ crlNumber: -1n }))).toThrow(RangeError);
    expect(() => encodeTbsCertList(profile({ crlNumber: 2n ** 159n }))).toThrow(/more than 20/);
    expect(() => encodeTbsCertList(profile({ crlNumber: 5 as unknown as bigint }))).toThrow(RangeError);
  });

  it.each([
    ['an empty serial', ''],
    ['serial zero', '00'],
    ['a non-hex serial', '12G4'],
    ['a negative serial', '-01'],
    ['a serial of 21 octets', '01' + '00'.repeat(20)],
    ['a serial that needs a 21st sign octet', '80' + '00'.repeat(19)],
  ])('refuses an entry with %s, naming the entry', (_case, serialNumberHex) => {
    const entries = [
      { serialNumberHex: '01', revocationDate: thisUpdate, reasonCode: 0 },
      { serialNumberHex, revocationDate: thisUpdate, reasonCode: 0 },
    ];
    expect(() => encodeTbsCertList(profile({ entries }))).toThrow(/^CRL entry 1: Serial number/);
  });

  it.each([7, 8, 11, -1, 2.5])('refuses the reason code %s', (reasonCode) => {
    const entries = [{ serialNumberHex: '01', revocationDate: thisUpdate, reasonCode }];
    expect(() => encodeTbsCertList(profile({ entries }))).toThrow(RangeError);
  });

  it('refuses an invalid revocation date', () => {
    const entries = [{ serialNumberHex: '01', revocationDate: new Date('nope'), reasonCode: 0 }];
    expect(() => encodeTbsCertList(profile({ entries }))).toThrow(/CRL entry 0: Invalid Date/);
    const notADate = [
      { serialNumberHex: '01', revocationDate: '2026-01-01' as unknown as Date, reasonCode: 0 },
    ];
    expect(() => encodeTbsCertList(profile({ entries: notADate }))).toThrow(/CRL entry 0: /);
  });

  it('refuses a nextUpdate that is not later than thisUpdate (in whole seconds)', () => {
    expect(() => encodeTbsCertList(profile({ nextUpdate: thisUpdate }))).toThrow(RangeError);
    expect(() => encodeTbsCertList(profile({ nextUpdate: new Date(thisUpdate.getTime() + 999) }))).toThrow(
      RangeError,
    );
  });

  it('refuses an issuer that is not a CA, or that may not sign CRLs (RFC 5280 6.3.3 (f))', async () => {
    const leaf = await pki.issueLeaf();
    expect(() => encodeTbsCertList(profile({ issuerCertificateDer: leaf.der }))).toThrow(/not a CA/);
    const noCrlSign = await caWithoutCrlSign(pki.caKeys);
    expect(() => encodeTbsCertList(profile({ issuerCertificateDer: noCrlSign }))).toThrow(/cRLSign/);
    expect(() => encodeTbsCertList(profile({ issuerCertificateDer: new Uint8Array([1, 2]) }))).toThrow(
      PkiFormatError,
    );
  });

  it('reads the entries from any iterable, once', () => {
    let reads = 0;
    function* entries(): Generator<RevokedCertificateEntry> {
      for (let i = 1; i <= 3; i++) {
        reads++;
        yield { serialNumberHex: i.toString(16), revocationDate: thisUpdate, reasonCode: i % 2 };
      }
    }
    expect(inspectTbsCertList(encodeTbsCertList(profile({ entries: entries() }))).entryCount).toBe(3);
    expect(reads).toBe(3);
  });

  it('encodes 100,000 entries, spanning several chunks, reading each once', () => {
    const count = 100_000;
    const base = thisUpdate.getTime() - 86_400_000 * 365;
    let reads = 0;
    function* entries(): Generator<RevokedCertificateEntry> {
      for (let i = 0; i < count; i++) {
        reads++;
        yield {
          serialNumberHex: (0x4000_0000_0000n + BigInt(i) * 7919n).toString(16) + 'a5'.repeat(9),
          revocationDate: new Date(base + i * 1000),
          reasonCode: i % 3,
        };
      }
    }
    const tbs = encodeTbsCertList(profile({ entries: entries() }));
    expect(tbs.byteLength).toBeGreaterThan(4 << 20);
    expect(inspectTbsCertList(tbs).entryCount).toBe(count);
    // One pass over the entries; how fast it goes is bench/crl-build.ts's to measure, not a unit test's.
    expect(reads).toBe(count);
  });
});

describe('assembleCertificateList', () => {
  let pki: TestPki;

  beforeAll(async () => {
    pki = await createTestPki();
  });

  it('wraps the signed octets, ecdsa-with-SHA256 and the signature (RFC 5280 5.1.1)', async () => {
    const tbs = encodeTbsCertList({
      issuerCertificateDer: pki.caDer,
      crlNumber: 1n,
      thisUpdate,
      nextUpdate,
      entries: [{ serialNumberHex: '1234', revocationDate: thisUpdate, reasonCode: 1 }],
    });
    const signature = await signTbs(tbs, pki.caKeys.privateKey);
    const crl = pkijs.CertificateRevocationList.fromBER(assembleCertificateList(tbs, signature));
    expect(Buffer.from(crl.tbsView)).toEqual(Buffer.from(tbs));
    expect(crl.signatureAlgorithm.algorithmId).toBe('1.2.840.10045.4.3.2');
    expect(Buffer.from(crl.signatureValue.valueBlock.valueHexView)).toEqual(Buffer.from(signature));
    const publicKey = createPublicKey({
      key: Buffer.from(await exportSpkiDer(pki.caKeys.publicKey)),
      format: 'der',
      type: 'spki',
    });
    expect(verify('sha256', tbs, publicKey, signature)).toBe(true);
    expect(await crl.verify({ issuerCertificate: pkijs.Certificate.fromBER(pki.caDer) }, pkiCrypto())).toBe(
      true,
    );
  });

  it('refuses inputs that are not one DER SEQUENCE each', () => {
    const sequence = Uint8Array.of(0x30, 0);
    expect(() => assembleCertificateList(Uint8Array.of(0x30, 1), sequence)).toThrow(PkiFormatError);
    expect(() => assembleCertificateList(sequence, Uint8Array.of(0x02, 1, 1))).toThrow(PkiFormatError);
    expect(() => assembleCertificateList(Uint8Array.of(0x30, 0, 0), sequence)).toThrow(PkiFormatError);
  });
});

/** A self-signed CA certificate whose keyUsage has keyCertSign but not cRLSign. */
async function caWithoutCrlSign(keys: webcrypto.CryptoKeyPair): Promise<Uint8Array> {
  const certificate = new pkijs.Certificate({
    version: 2,
    serialNumber: new asn1js.Integer({ value: 1 }),
    issuer: encodeName({ commonName: 'No CRL Sign' }),
    subject: encodeName({ commonName: 'No CRL Sign' }),
    notBefore: encodeTime(new Date('2026-01-01T00:00:00Z')),
    notAfter: encodeTime(new Date('2036-01-01T00:00:00Z')),
  });
  await certificate.subjectPublicKeyInfo.importKey(keys.publicKey, pkiCrypto());
  certificate.extensions = [basicConstraintsExtension({ cA: true }), keyUsageExtension(['keyCertSign'])];
  await certificate.sign(keys.privateKey, 'SHA-256', pkiCrypto());
  return new Uint8Array(certificate.toSchema(true).toBER(false));
}
