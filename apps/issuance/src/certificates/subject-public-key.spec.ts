import { ErrorCode } from '@ca/contracts';
import { exportSpkiDer, generateEcKeyPair } from '@ca/pki';
import { buildTestCsr, withBrokenSignature } from '@ca/pki/testing';
import { assertCsrKeyFitsCa, importSubjectPublicKey } from './subject-public-key';

const rsa2048Keys = () =>
  globalThis.crypto.subtle.generateKey(
    {
      name: 'RSASSA-PKCS1-v1_5',
      modulusLength: 2048,
      publicExponent: Uint8Array.of(1, 0, 1),
      hash: 'SHA-256',
    },
    true,
    ['sign', 'verify'],
  );

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

  describe('RSA-2048 keys (docs/api.md#key-algorithms)', () => {
    it('refuses them in a deployment of another key algorithm, as ever', async () => {
      const keys = await rsa2048Keys();
      await expect(
        importSubjectPublicKey({ format: 'spki', der: base64(await exportSpkiDer(keys.publicKey)) }),
      ).rejects.toEqual(refusedWith(ErrorCode.ValidationFailed, 'subjectPublicKey'));
      await expect(
        importSubjectPublicKey({ format: 'pkcs10', der: base64(await buildTestCsr(keys)) }, 'RSA-3072'),
      ).rejects.toEqual(refusedWith(ErrorCode.CsrKeyNotAllowed, 'csrPem'));
    });

    it('takes them in a deployment whose key algorithm is RSA-2048', async () => {
      const keys = await rsa2048Keys();
      const spki = base64(await exportSpkiDer(keys.publicKey));
      const made = await importSubjectPublicKey({ format: 'spki', der: spki }, 'RSA-2048');
      expect(made).toMatchObject({ algorithm: 'RSA-2048', fromCsr: false });
      const sent = await importSubjectPublicKey(
        { format: 'pkcs10', der: base64(await buildTestCsr(keys)) },
        'RSA-2048',
      );
      expect(sent).toMatchObject({ algorithm: 'RSA-2048', fromCsr: true });
    });

    it("certifies an RSA-2048 CSR's key under an RSA CA only", async () => {
      const keys = await rsa2048Keys();
      const csr = { format: 'pkcs10', der: base64(await buildTestCsr(keys)) };
      const key = await importSubjectPublicKey(csr, 'RSA-2048');
      expect(() => assertCsrKeyFitsCa(key, 'RSA-2048')).not.toThrow();
      expect(() => assertCsrKeyFitsCa(key, 'RSA-4096')).not.toThrow();
      expect(() => assertCsrKeyFitsCa(key, 'ECDSA-P256')).toThrow(
        expect.objectContaining({ code: ErrorCode.CsrKeyNotAllowed }),
      );
      // A key the gateway made for an explicit keyAlgorithm is the caller's choice.
      const made = await importSubjectPublicKey(
        { format: 'spki', der: base64(await exportSpkiDer(keys.publicKey)) },
        'RSA-2048',
      );
      expect(() => assertCsrKeyFitsCa(made, 'ECDSA-P256')).not.toThrow();
    });
  });
});
