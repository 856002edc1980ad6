import { derToPem, pemToDer } from './pem';
import { PkiFormatError } from './pki-format.error';

// 100 octets are 136 base64 characters: lines of 64, 64 and 8.
const der = Uint8Array.from({ length: 100 }, (_, i) => i);

describe('derToPem', () => {
  it('writes 64-character base64 lines between the boundaries and ends with a newline', () => {
    const pem = derToPem(der);
    const lines = pem.split('\n');
    expect(lines.map((line) => line.length)).toEqual([27, 64, 64, 8, 25, 0]);
    expect(lines[0]).toBe('-----BEGIN CERTIFICATE-----');
    expect(lines[4]).toBe('-----END CERTIFICATE-----');
    expect(lines.slice(1, 4).join('')).toBe(Buffer.from(der).toString('base64'));
  });

  it('uses the given label', () => {
    expect(derToPem(Uint8Array.of(1), 'NEW-STYLE LABEL')).toMatch(/^-----BEGIN NEW-STYLE LABEL-----\n/);
    expect(derToPem(Uint8Array.of(1), 'X509 CRL')).toBe(
      '-----BEGIN X509 CRL-----\nAQ==\n-----END X509 CRL-----\n',
    );
  });

  it('rejects a label RFC 7468 does not allow', () => {
    expect(() => derToPem(der, 'TWO  SPACES')).toThrow(RangeError);
    expect(() => derToPem(der, 'TRAILING-')).toThrow(RangeError);
    expect(() => derToPem(der, '')).toThrow(RangeError);
  });
});

describe('pemToDer', () => {
  it('round-trips derToPem', () => {
    expect(pemToDer(derToPem(der))).toEqual(der);
    expect(pemToDer(derToPem(der, 'PRIVATE KEY'), 'PRIVATE KEY')).toEqual(der);
    expect(pemToDer(derToPem(der, 'NEW-STYLE LABEL'), 'NEW-STYLE LABEL')).toEqual(der);
  });

  it('accepts CRLF, indentation, and explanatory text around the block (RFC 7468 section 2)', () => {
    const pem = `Subject: CN=x\r\n${derToPem(der).replace(/\n/g, '\r\n  ')}trailing text`;
    expect(pemToDer(pem)).toEqual(der);
  });

  it.each([
    ['no PEM at all', 'hello', /no "-----BEGIN/],
    ['an empty string', '', /no "-----BEGIN/],
    ['a missing END line', '-----BEGIN CERTIFICATE-----\nAQ==\n', /exactly one PEM block/],
    ['two blocks', derToPem(der) + derToPem(der), /exactly one PEM block/],
    ['END before BEGIN', '-----END X-----\nAQ==\n-----BEGIN X-----\n', /END line comes before BEGIN/],
    ['labels that differ', '-----BEGIN CERTIFICATE-----\nAQ==\n-----END X509 CRL-----\n', /labels differ/],
    ['an empty body', '-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n', /no content/],
    ['invalid base64', '-----BEGIN CERTIFICATE-----\nA*Q=\n-----END CERTIFICATE-----\n', /not valid base64/],
    ['truncated base64', '-----BEGIN CERTIFICATE-----\nAQI\n-----END CERTIFICATE-----\n', /not valid base64/],
  ])('rejects %s with a PkiFormatError', (_case, pem, message) => {
    expect(() => pemToDer(pem)).toThrow(PkiFormatError);
    expect(() => pemToDer(pem)).toThrow(message);
  });

  it('rejects another label than the expected one', () => {
    expect(() => pemToDer(derToPem(der, 'PRIVATE KEY'), 'CERTIFICATE')).toThrow(
      'Expected a PEM CERTIFICATE, got a PEM PRIVATE KEY',
    );
  });
});
