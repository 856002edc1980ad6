import { createHash } from 'node:crypto';

import * as pkijs from 'pkijs';

import { parseCertificate } from './certificate.parser';
import { pkiCrypto } from './crypto-engine';
import { DerReader } from './der-reader';
import { toHex } from './hex';
import { buildCertId, issuerHashes, ocspHashAlgorithmName, readCertId } from './ocsp-cert-id';
import { PkiFormatError } from './pki-format.error';
import { readTbsCertificateFields } from './tbs-certificate.reader';
import { createTestPki, type TestPki } from './testing';

describe('OCSP CertID (RFC 6960 4.1.1)', () => {
  let pki: TestPki;

  beforeAll(async () => {
    pki = await createTestPki('CertID Root');
  });

  it("hashes the issuer's DER Name and its subjectPublicKey value", () => {
    const { subjectDer } = readTbsCertificateFields(pki.caDer);
    const sha1 = issuerHashes(pki.caDer, 'sha1');
    expect(toHex(sha1.issuerNameHash)).toBe(
      createHash('sha1').update(subjectDer).digest('hex').toUpperCase(),
    );
    // The SHA-1 key hash is the CA's key identifier (RFC 5280 4.2.1.2 method 1).
    expect(toHex(sha1.issuerKeyHash)).toBe(parseCertificate(pki.caDer).subjectKeyIdentifierHex);
    const sha256 = issuerHashes(pki.caDer, 'sha256');
    expect(sha256.issuerNameHash).toHaveLength(32);
    expect(sha256.issuerKeyHash).toHaveLength(32);
  });

  it.each([
    ['sha1', 'SHA-1'],
    ['sha256', 'SHA-256'],
  ] as const)('computes the %s hashes pkijs computes', async (algorithm, pkijsName) => {
    const leaf = await pki.issueLeaf();
    const certId = new pkijs.CertID();
    await certId.createForCertificate(
      pkijs.Certificate.fromBER(leaf.der),
      { hashAlgorithm: pkijsName, issuerCertificate: pkijs.Certificate.fromBER(pki.caDer) },
      pkiCrypto(),
    );
    const ours = buildCertId({
      issuerCertificateDer: pki.caDer,
      serialNumberHex: leaf.serialNumberHex,
      hashAlgorithm: algorithm,
    });
    expect(toHex(ours.issuerNameHash)).toBe(toHex(certId.issuerNameHash.valueBlock.valueHexView));
    expect(toHex(ours.issuerKeyHash)).toBe(toHex(certId.issuerKeyHash.valueBlock.valueHexView));
    expect(ours.serialNumberHex).toBe(leaf.serialNumberHex);
  });

  it('builds a CertID with NULL hash parameters that reads back the same', () => {
    const built = buildCertId({
      issuerCertificateDer: pki.caDer,
      serialNumberHex: '00ff01',
      hashAlgorithm: 'sha1',
    });
    expect(built.serialNumberHex).toBe('FF01');
    expect(toHex(built.der)).toMatch(/^30..300906052B0E03021A05000414/);
    const reader = new DerReader(built.der);
    expect(readCertId(reader, reader.read('CertID'))).toEqual(built);
  });

  it('names the hash algorithms it knows and keeps others as dotted OIDs', () => {
    expect(ocspHashAlgorithmName('1.3.14.3.2.26')).toBe('sha1');
    expect(ocspHashAlgorithmName('2.16.840.1.101.3.4.2.1')).toBe('sha256');
    expect(ocspHashAlgorithmName('2.16.840.1.101.3.4.2.2')).toBe('2.16.840.1.101.3.4.2.2');
  });

  it('refuses other algorithms and what is not a certificate', () => {
    expect(() => issuerHashes(pki.caDer, 'md5' as 'sha1')).toThrow(RangeError);
    expect(() => issuerHashes(pki.caDer, 'toString' as 'sha1')).toThrow(RangeError);
    expect(() => issuerHashes(Uint8Array.of(0x30, 0), 'sha1')).toThrow(PkiFormatError);
  });
});
