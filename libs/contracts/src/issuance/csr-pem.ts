import { KEY_ALGORITHMS, KeyAlgorithm } from './key-algorithm';

/** docs/api.md#csr-issuance: the longest `csrPem` accepted, in characters (a 4096-bit RSA request is about 1.7 KiB). */
export const MAX_CSR_PEM_LENGTH = 16 * 1024;

/** The OpenAPI description of `csrPem`, shared by the v2 issue and renew bodies. */
export const CSR_PEM_PROPERTY = {
  type: String,
  maxLength: MAX_CSR_PEM_LENGTH,
  description:
    'A PKCS#10 certificate request (RFC 2986) in PEM ("-----BEGIN CERTIFICATE REQUEST-----") whose ' +
    'self-signature verifies; its key must be one of: ' +
    KEY_ALGORITHMS.filter((algorithm) => algorithm !== KeyAlgorithm.Rsa2048).join(', ') +
    ' (RSA-2048 too in a deployment whose key algorithm is RSA-2048, under an RSA CA)' +
    '. Only its public key is used: subject and SANs come from this request body and the tenant policy, ' +
    'never from the CSR. The answer then has no privateKeyPem; responseFormat must be Text and ' +
    'passwordProtected false.',
};
