import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import * as pkijs from 'pkijs';

import { keyIdentifier } from './extensions';
import { toHex } from './hex';
import { pemToDer } from './pem';
import { PkiFormatError } from './pki-format.error';
import { readTbsCertificateFields } from './tbs-certificate.reader';

const fixture = (file: string) => pemToDer(readFileSync(join(__dirname, 'testdata', file), 'utf8'));

describe('readTbsCertificateFields', () => {
  it.each(['openssl-p256-root.pem', 'openssl-v1-leaf.pem', 'openssl-full-leaf.pem'])(
    'finds the subject and key of %s where pkijs finds them',
    (file) => {
      const der = fixture(file);
      const certificate = pkijs.Certificate.fromBER(der);
      const fields = readTbsCertificateFields(der);
      expect(Buffer.from(fields.subjectDer)).toEqual(
        Buffer.from(certificate.subject.toSchema().toBER(false)),
      );
      expect(Buffer.from(fields.subjectPublicKeyInfoDer)).toEqual(
        Buffer.from(certificate.subjectPublicKeyInfo.toSchema().toBER(false)),
      );
      expect(fields.subjectPublicKey).toHaveLength(65); // uncompressed P-256 point
      expect(fields.subjectPublicKey[0]).toBe(0x04);
    },
  );

  it('gives the key octets the SKI of the openssl root was computed over (RFC 5280 4.2.1.2)', () => {
    const der = fixture('openssl-p256-root.pem');
    const { subjectPublicKey } = readTbsCertificateFields(der);
    const ski = '482BCC32426313401F9612ACB91E1D51F93E3501';
    expect(createHash('sha1').update(subjectPublicKey).digest('hex').toUpperCase()).toBe(ski);
    expect(toHex(keyIdentifier(pkijs.Certificate.fromBER(der).subjectPublicKeyInfo))).toBe(ski);
  });

  it('throws PkiFormatError for what is not a certificate', () => {
    const der = fixture('openssl-p256-root.pem');
    expect(() => readTbsCertificateFields(der.subarray(0, der.length - 1))).toThrow(PkiFormatError);
    expect(() => readTbsCertificateFields(new Uint8Array([0x30, 0x00]))).toThrow(PkiFormatError);
    expect(() => readTbsCertificateFields(new Uint8Array([1, 2, 3]))).toThrow(PkiFormatError);
  });
});
