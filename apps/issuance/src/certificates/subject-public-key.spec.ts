import { ErrorCode } from '@ca/contracts';
import { exportSpkiDer, generateEcKeyPair } from '@ca/pki';
import { buildTestCsr, withBrokenSignature } from '@ca/pki/testing';
import { importSubjectPublicKey } from './subject-public-key';

const base64 = (der: Uint8Array) => Buffer.from(der).toString('base64');
const refusedWith = (code: string, field: string) =>
  expect.objectContaining({ code, errors: [expect.objectContaining({ field })] });

describe('importSubjectPublicKey', () => {
  it('takes the key of a gateway-made SubjectPublicKeyInfo, not from a CSR', async () => {
    const keys = await generateEcKeyPair(false);
    const key = await importSubjectPublicKey({
      format: 'spki',
      der: base64(await exportSpkiDer(keys.publicKey)),
    });
    expect(key.fromCsr).toBe(false);
    expect(await exportSpkiDer(key.publicKey)).toEqual(await exportSpkiDer(keys.publicKey));
  });

  it('takes only the key of a CSR whose self-signature verifies, and says it came from one', async () => {
    const keys = await generateEcKeyPair(false);
    const key = await importSubjectPublicKey({ format: 'pkcs10', der: base64(await buildTestCsr(keys)) });
    expect(key.fromCsr).toBe(true);
    expect(await exportSpkiDer(key.publicKey)).toEqual(await exportSpkiDer(keys.publicKey));
  });

  it('checks a CSR itself, whatever the caller checked: signature, structure, size', async () => {
    const csr = await buildTestCsr(await generateEcKeyPair(false));
    await expect(
      importSubjectPublicKey({ format: 'pkcs10', der: base64(withBrokenSignature(csr)) }),
    ).rejects.toEqual(refusedWith(ErrorCode.CsrSignatureInvalid, 'csrPem'));
    await expect(importSubjectPublicKey({ format: 'pkcs10', der: base64(csr.slice(0, 40)) })).rejects.toEqual(
      refusedWith(ErrorCode.CsrInvalid, 'csrPem'),
    );
    await expect(importSubjectPublicKey({ format: 'pkcs10', der: 'not base64!' })).rejects.toEqual(
      refusedWith(ErrorCode.CsrInvalid, 'csrPem'),
    );
    await expect(
      importSubjectPublicKey({ format: 'pkcs10', der: base64(new Uint8Array(20_000)) }),
    ).rejects.toEqual(refusedWith(ErrorCode.CsrInvalid, 'csrPem'));
  });

  it('refuses other formats and shapes on subjectPublicKey', async () => {
    for (const value of [null, [], { format: 'jwk', der: 'AA==' }, { format: 'spki', der: 'AA==' }]) {
      await expect(importSubjectPublicKey(value)).rejects.toEqual(
        refusedWith(ErrorCode.ValidationFailed, 'subjectPublicKey'),
      );
    }
  });
});
