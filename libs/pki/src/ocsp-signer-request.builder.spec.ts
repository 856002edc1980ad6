import { webcrypto } from 'node:crypto';
import { parseCertificationRequest } from './csr.parser';
import { buildOcspSignerCertificationRequest } from './ocsp-signer-request.builder';

describe('buildOcspSignerCertificationRequest', () => {
  it.each([
    ['P-256', { name: 'ECDSA', namedCurve: 'P-256' }],
    ['P-384', { name: 'ECDSA', namedCurve: 'P-384' }],
    [
      'RSA-2048',
      {
        name: 'RSASSA-PKCS1-v1_5',
        modulusLength: 2048,
        publicExponent: new Uint8Array([1, 0, 1]),
        hash: 'SHA-256',
      },
    ],
  ])(
    'makes a %s request that proves possession of its key (RFC 2986 section 3)',
    async (algorithm, params) => {
      const keys = (await webcrypto.subtle.generateKey(params, false, [
        'sign',
        'verify',
      ])) as webcrypto.CryptoKeyPair;
      const request = parseCertificationRequest(
        await buildOcspSignerCertificationRequest('OCSP signer', keys),
      );
      expect(request.keyAlgorithm).toBe(algorithm);
      expect(Buffer.from(request.subjectPublicKeyInfo)).toEqual(
        Buffer.from(await webcrypto.subtle.exportKey('spki', keys.publicKey)),
      );
      expect(await request.verifySignature()).toBe(true);
    },
  );
});
