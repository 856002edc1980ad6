import { randomBytes } from 'node:crypto';

import { parseCertificate } from './certificate.parser';
import { assembleCertificateList, encodeTbsCertList } from './crl.builder';
import { DerReader, readSingleElement } from './der-reader';
import { encodeGeneralizedTimeDer, encodeTimeDer } from './der-time';
import {
  contextConstructed,
  derElement,
  derObjectIdentifier,
  derOctetString,
  derSequence,
  derUnsignedInteger,
  TAG,
} from './der-writer';
import { signTbs } from './ecdsa-sig-value';
import { PkiFormatError } from './pki-format.error';
import { inspectTbsCertList } from './tbs-cert-list.inspector';
import { readTbsCertificateFields } from './tbs-certificate.reader';
import { createTestPki, type TestPki } from './testing';

const thisUpdate = new Date('2026-11-22T10:00:00Z');
const nextUpdate = new Date('2026-11-29T10:00:00Z');
const CRITICAL = Uint8Array.of(TAG.boolean, 1, 0xff);

/** The top-level elements of a DER SEQUENCE, each whole. */
function elementsOf(der: Uint8Array): Uint8Array[] {
  const outer = readSingleElement(der, 'sequence', TAG.sequence);
  const reader = new DerReader(der, outer.contentStart, outer.end);
  const elements: Uint8Array[] = [];
  while (!reader.atEnd) elements.push(reader.encoding(reader.read('element')).slice());
  return elements;
}

const extension = (oid: string, value: Uint8Array, critical = false) =>
  derSequence(derObjectIdentifier(oid), ...(critical ? [CRITICAL] : []), derOctetString(value));
const crlExtensions = (...extensions: Uint8Array[]) =>
  derElement(contextConstructed(0), derSequence(...extensions));

describe('inspectTbsCertList', () => {
  let pki: TestPki;
  let tbs: Uint8Array;
  let parts: Uint8Array[]; // version, signature, issuer, thisUpdate, nextUpdate, revokedCertificates, crlExtensions
  let aki: Uint8Array;
  let crlNumber: Uint8Array;
  const entry = (...fields: Uint8Array[]) => derSequence(...fields);
  const serial = Uint8Array.of(TAG.integer, 1, 5);
  const revokedAt = encodeTimeDer(thisUpdate);
  /** The valid TBSCertList with the element at `index` replaced (or removed, with no replacement). */
  const replaced = (index: number, ...replacement: Uint8Array[]) =>
    derSequence(...parts.slice(0, index), ...replacement, ...parts.slice(index + 1));

  beforeAll(async () => {
    pki = await createTestPki();
    tbs = encodeTbsCertList({
      issuerCertificateDer: pki.caDer,
      crlNumber: 12n,
      thisUpdate,
      nextUpdate,
      entries: [
        { serialNumberHex: '05', revocationDate: thisUpdate, reasonCode: 0 },
        { serialNumberHex: '0A0B', revocationDate: new Date('2051-01-01T00:00:00Z'), reasonCode: 1 },
      ],
    });
    parts = elementsOf(tbs);
    const wrapper = readSingleElement(parts[6], 'crlExtensions', contextConstructed(0));
    [aki, crlNumber] = elementsOf(parts[6].subarray(wrapper.contentStart, wrapper.end));
  });

  it('accepts what encodeTbsCertList writes and says what it holds', () => {
    expect(parts).toHaveLength(7);
    expect(inspectTbsCertList(tbs)).toEqual({
      signatureAlgorithm: expect.objectContaining({ name: 'ecdsa-with-SHA256' }),
      issuerDer: readTbsCertificateFields(pki.caDer).subjectDer,
      crlNumber: 12n,
      thisUpdate,
      nextUpdate,
      authorityKeyIdentifierHex: parseCertificate(pki.caDer).subjectKeyIdentifierHex,
      entryCount: 2,
    });
    const empty = encodeTbsCertList({
      issuerCertificateDer: pki.caDer,
      crlNumber: 0n,
      thisUpdate,
      nextUpdate,
      entries: [],
    });
    expect(inspectTbsCertList(empty).entryCount).toBe(0);
  });

  it('rejects a TBSCertificate: the CA key must not sign a certificate handed to it as a CRL', () => {
    const [tbsCertificate] = elementsOf(pki.caDer);
    expect(() => inspectTbsCertList(tbsCertificate)).toThrow(PkiFormatError);
    expect(() => inspectTbsCertList(pki.caDer)).toThrow(PkiFormatError);
  });

  it('rejects a signed CertificateList', async () => {
    const crl = assembleCertificateList(tbs, await signTbs(tbs, pki.caKeys.privateKey));
    expect(() => inspectTbsCertList(crl)).toThrow(PkiFormatError);
  });

  it('rejects garbage and empty input', () => {
    expect(() => inspectTbsCertList(new Uint8Array(0))).toThrow(PkiFormatError);
    for (let i = 0; i < 50; i++) expect(() => inspectTbsCertList(randomBytes(64))).toThrow(PkiFormatError);
    expect(() => inspectTbsCertList(Uint8Array.of(0x30, 0))).toThrow(PkiFormatError);
  });

  it('rejects every truncation and trailing octets', () => {
    for (let length = 0; length < tbs.length; length++) {
      expect(() => inspectTbsCertList(tbs.subarray(0, length))).toThrow(PkiFormatError);
    }
    expect(() => inspectTbsCertList(Uint8Array.of(...tbs, 0))).toThrow(/trailing/);
  });

  it('rejects a v1 CRL and an unknown version', () => {
    expect(() => inspectTbsCertList(replaced(0))).toThrow(PkiFormatError);
    expect(() => inspectTbsCertList(replaced(0, Uint8Array.of(TAG.integer, 1, 2)))).toThrow(/v2/);
  });

  it('rejects a signature algorithm no CA signs with, or ecdsa-with-SHA256 with parameters', () => {
    const sha512 = derSequence(derObjectIdentifier('1.2.840.10045.4.3.4'));
    const withNull = derSequence(derObjectIdentifier('1.2.840.10045.4.3.2'), Uint8Array.of(TAG.null, 0));
    expect(() => inspectTbsCertList(replaced(1, sha512))).toThrow(/signature algorithm/);
    expect(() => inspectTbsCertList(replaced(1, withNull))).toThrow(/signature algorithm/);
  });

  it('rejects an empty issuer Name or one that is not a Name (RFC 5280 5.1.2.3)', () => {
    expect(() => inspectTbsCertList(replaced(2, derSequence()))).toThrow(/empty Name/);
    expect(() => inspectTbsCertList(replaced(2, derSequence(derSequence())))).toThrow(PkiFormatError);
  });

  it('rejects a CRL without nextUpdate, or with one not after thisUpdate', () => {
    expect(() => inspectTbsCertList(replaced(4))).toThrow(PkiFormatError);
    expect(() => inspectTbsCertList(replaced(4, encodeTimeDer(thisUpdate)))).toThrow(/nextUpdate/);
  });

  it('rejects a GeneralizedTime before 2050 (RFC 5280 5.1.2.4)', () => {
    expect(() => inspectTbsCertList(replaced(3, encodeGeneralizedTimeDer(thisUpdate)))).toThrow(/UTCTime/);
  });

  it('rejects revokedCertificates that is present but empty (RFC 5280 5.1.2.6)', () => {
    expect(() => inspectTbsCertList(replaced(5, derSequence()))).toThrow(/absent, not empty/);
  });

  it.each([
    ['a negative serial', () => entry(Uint8Array.of(TAG.integer, 1, 0x85), revokedAt)],
    ['serial zero', () => entry(Uint8Array.of(TAG.integer, 1, 0), revokedAt)],
    ['a non-minimal serial', () => entry(Uint8Array.of(TAG.integer, 2, 0, 5), revokedAt)],
    ['a serial of 21 octets', () => entry(derUnsignedInteger(2n ** 160n), revokedAt)],
    ['no revocation date', () => entry(serial)],
    ['a GeneralizedTime revocation date in 2026', () => entry(serial, encodeGeneralizedTimeDer(thisUpdate))],
    [
      'an invalidityDate entry extension',
      () =>
        entry(serial, revokedAt, derSequence(extension('2.5.29.24', encodeGeneralizedTimeDer(thisUpdate)))),
    ],
    [
      'a critical reasonCode',
      () =>
        entry(
          serial,
          revokedAt,
          derSequence(extension('2.5.29.21', Uint8Array.of(TAG.enumerated, 1, 1), true)),
        ),
    ],
    [
      'reason 7',
      () =>
        entry(serial, revokedAt, derSequence(extension('2.5.29.21', Uint8Array.of(TAG.enumerated, 1, 7)))),
    ],
    [
      'a critical certificateIssuer (indirect CRL)',
      () => entry(serial, revokedAt, derSequence(extension('2.5.29.29', derSequence(), true))),
    ],
  ])('rejects an entry with %s', (_case, badEntry) => {
    const revoked = derSequence(entry(serial, revokedAt), badEntry());
    expect(() => inspectTbsCertList(replaced(5, revoked))).toThrow(/revokedCertificates entry 1/);
  });

  it('rejects an extra critical CRL extension (a delta CRL indicator)', () => {
    const deltaCrlIndicator = extension('2.5.29.27', derUnsignedInteger(11n), true);
    expect(() => inspectTbsCertList(replaced(6, crlExtensions(aki, crlNumber, deltaCrlIndicator)))).toThrow(
      /critical extensions are not allowed/,
    );
  });

  it('rejects any other CRL extension, a repeated one, or AKI and CRL Number marked critical', () => {
    const issuerAltName = extension('2.5.29.18', derSequence());
    const criticalNumber = extension('2.5.29.20', derUnsignedInteger(12n), true);
    const cases = [
      crlExtensions(aki, crlNumber, issuerAltName),
      crlExtensions(aki, crlNumber, crlNumber),
      crlExtensions(aki, criticalNumber),
      crlExtensions(aki),
      crlExtensions(crlNumber),
      crlExtensions(),
    ];
    for (const extensions of cases)
      expect(() => inspectTbsCertList(replaced(6, extensions))).toThrow(PkiFormatError);
    expect(() => inspectTbsCertList(replaced(6))).toThrow(PkiFormatError);
  });

  it('rejects an AKI with more than a keyIdentifier, and a CRL Number that is negative or too long', () => {
    const akiWithSerial = extension(
      '2.5.29.35',
      derSequence(derElement(0x80, new Uint8Array(20)), derElement(0x82, Uint8Array.of(1))),
    );
    const negative = extension('2.5.29.20', Uint8Array.of(TAG.integer, 1, 0xff));
    const long = extension('2.5.29.20', derUnsignedInteger(2n ** 159n));
    expect(() => inspectTbsCertList(replaced(6, crlExtensions(akiWithSerial, crlNumber)))).toThrow(
      /keyIdentifier/,
    );
    expect(() => inspectTbsCertList(replaced(6, crlExtensions(aki, negative)))).toThrow(/negative/);
    expect(() => inspectTbsCertList(replaced(6, crlExtensions(aki, long)))).toThrow(/20 octets/);
  });

  it('rejects an element after crlExtensions', () => {
    expect(() => inspectTbsCertList(derSequence(...parts, Uint8Array.of(TAG.null, 0)))).toThrow(
      PkiFormatError,
    );
  });
});
