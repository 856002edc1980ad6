import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';

import { parseCrl } from './crl.parser';
import { encodeName } from './name';
import { pemToDer } from './pem';
import { PkiFormatError } from './pki-format.error';
import { inspectTbsCertList } from './tbs-cert-list.inspector';
import { readTbsCertificateFields } from './tbs-certificate.reader';
import { encodeTime } from './validity-time';

const fixture = (file: string) => pemToDer(readFileSync(join(__dirname, 'testdata', file), 'utf8'));

describe('parseCrl', () => {
  it('reads a CRL made by openssl as openssl prints it', () => {
    expect(parseCrl(fixture('openssl-crl.pem'))).toEqual({
      crlNumber: 5n,
      thisUpdate: new Date('2026-11-22T01:07:56Z'),
      nextUpdate: new Date('2026-11-29T01:07:56Z'),
      issuer: { commonName: 'OpenSSL CRL CA' },
      authorityKeyIdentifierHex: 'A51145DCB8E357D222AFC3CB1322D810EBB55D36',
      entries: [
        { serialNumberHex: '01', revocationDate: new Date('2026-11-21T08:00:00Z'), reasonCode: 0 },
        { serialNumberHex: '0A0B', revocationDate: new Date('2026-11-20T08:00:00Z'), reasonCode: 1 },
      ],
    });
  });

  it("lets inspectTbsCertList accept the openssl CRL's TBSCertList, which has the same profile", () => {
    const crl = pkijs.CertificateRevocationList.fromBER(fixture('openssl-crl.pem'));
    const summary = inspectTbsCertList(crl.tbsView);
    expect(summary.entryCount).toBe(2);
    expect(summary.crlNumber).toBe(5n);
    expect(Buffer.from(summary.issuerDer)).toEqual(
      Buffer.from(readTbsCertificateFields(fixture('openssl-crl-ca.pem')).subjectDer),
    );
  });

  it('throws PkiFormatError for garbage, trailing octets and certificates', () => {
    const crl = fixture('openssl-crl.pem');
    expect(() => parseCrl(Uint8Array.of(1, 2, 3))).toThrow(PkiFormatError);
    expect(() => parseCrl(Uint8Array.of(...crl, 0))).toThrow(/Trailing/);
    expect(() => parseCrl(crl.subarray(0, crl.length - 2))).toThrow(PkiFormatError);
    expect(() => parseCrl(fixture('openssl-p256-root.pem'))).toThrow(PkiFormatError);
  });

  it('requires the CRL Number and nextUpdate this CA always writes', () => {
    const crl = new pkijs.CertificateRevocationList({
      version: 1,
      issuer: encodeName({ commonName: 'No Number' }),
      thisUpdate: encodeTime(new Date('2026-01-01T00:00:00Z')),
      nextUpdate: encodeTime(new Date('2026-01-08T00:00:00Z')),
    });
    crl.signature.algorithmId = '1.2.840.10045.4.3.2';
    crl.signatureAlgorithm.algorithmId = '1.2.840.10045.4.3.2';
    crl.signatureValue = new asn1js.BitString({ valueHex: new Uint8Array(8) });
    expect(() => parseCrl(new Uint8Array(crl.toSchema(true).toBER(false)))).toThrow(/CRL Number/);
  });
});
