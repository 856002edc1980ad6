import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { parseCertificate } from './certificate.parser';
import { pemToDer } from './pem';
import { PkiFormatError } from './pki-format.error';

const fixture = (file: string) => pemToDer(readFileSync(join(__dirname, 'testdata', file), 'utf8'));

describe('parseCertificate', () => {
  it('reads a root made by openssl as openssl prints it', () => {
    const name = {
      country: 'DE',
      organization: 'Fixture GmbH',
      organizationalUnit: 'Ops',
      commonName: 'Fixture Root',
    };
    expect(parseCertificate(fixture('openssl-p256-root.pem'))).toEqual({
      serialNumberHex: '8F0102030405060708090A0B0C0D0E0F',
      subject: name,
      issuer: name,
      notBefore: new Date('2026-11-22T00:33:37Z'),
      notAfter: new Date('2062-06-26T00:33:37Z'),
      isCa: true,
      subjectKeyIdentifierHex: '482BCC32426313401F9612ACB91E1D51F93E3501',
      sha256FingerprintHex: '511EAC304569F2DC4CD6A0F21777E47BB930C669662F678A37AFB6BBA00142F5',
    });
  });

  it('reads a v1 certificate without extensions: not a CA, no SKI', () => {
    const info = parseCertificate(fixture('openssl-v1-leaf.pem'));
    expect(info).toEqual({
      serialNumberHex: '01',
      subject: { commonName: 'Plain Leaf', organization: 'Other Inc' },
      issuer: { commonName: 'Plain Leaf', organization: 'Other Inc' },
      notBefore: new Date('2026-11-22T00:33:41Z'),
      notAfter: new Date('2026-12-22T00:33:41Z'),
      isCa: false,
      sha256FingerprintHex: '6DE860BCAE7E8B14A674729531F57CC9062A2CF01C826A9138FAB91E46ABC804',
    });
    expect('subjectKeyIdentifierHex' in info).toBe(false);
  });

  it.each([
    ['empty input', new Uint8Array(), /Not DER/],
    ['garbage', Uint8Array.of(0xff, 0x01, 0x02), /Not DER/],
    [
      'a DER structure that is not a certificate',
      Uint8Array.of(0x30, 0x03, 0x02, 0x01, 0x01),
      /Not an X.509/,
    ],
  ])('rejects %s with a PkiFormatError', (_case, der, message) => {
    expect(() => parseCertificate(der)).toThrow(PkiFormatError);
    expect(() => parseCertificate(der)).toThrow(message);
  });

  it('rejects trailing bytes after the certificate', () => {
    const der = fixture('openssl-v1-leaf.pem');
    expect(() => parseCertificate(Uint8Array.of(...der, 0))).toThrow('Trailing bytes');
  });
});
