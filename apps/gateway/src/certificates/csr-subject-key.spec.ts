import { ErrorCode } from '@ca/contracts';
import { derToPem } from '@ca/pki';
import { subjectKeyFromCsr } from './csr-subject-key';

const DER = Uint8Array.of(0x30, 0x03, 0x02, 0x01, 0x00);

describe('subjectKeyFromCsr', () => {
  it('sends the request as pkcs10 DER, under either request label', () => {
    for (const label of ['CERTIFICATE REQUEST', 'NEW CERTIFICATE REQUEST']) {
      expect(subjectKeyFromCsr(derToPem(DER, label))).toEqual({
        format: 'pkcs10',
        der: Buffer.from(DER).toString('base64'),
      });
    }
  });

  it.each([
    ['not PEM', 'hello'],
    ['a certificate', derToPem(DER, 'CERTIFICATE')],
    ['two blocks', derToPem(DER, 'CERTIFICATE REQUEST').repeat(2)],
    ['over 16 KiB', derToPem(new Uint8Array(13_000), 'CERTIFICATE REQUEST')],
  ])('refuses %s with CSR_INVALID on csrPem', (_, pem) => {
    expect(() => subjectKeyFromCsr(pem)).toThrow(
      expect.objectContaining({
        code: ErrorCode.CsrInvalid,
        errors: [expect.objectContaining({ field: 'csrPem' })],
      }),
    );
  });
});
