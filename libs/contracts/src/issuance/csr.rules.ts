import { ResponseFormat } from './certificate-status';
import { ALLOWED_LEAF_KEY_ALGORITHMS } from './key-algorithm';
import { FieldError } from '../common/ca-error';

/** docs/api.md#csr-issuance: the longest `csrPem` accepted, in characters (a 4096-bit RSA request is about 1.7 KiB). */
export const MAX_CSR_PEM_LENGTH = 16 * 1024;

/**
 * The key algorithms a CSR may carry (named as libs/pki's parser names them): those of any leaf
 * this CA certifies (docs/api.md#key-algorithms); Ed25519 is refused, and RSA-2048 unless the
 * deployment's key algorithm is RSA-2048 and the tenant's CA is RSA (issuance decides that).
 */
export const ALLOWED_CSR_KEY_ALGORITHMS: readonly string[] = ALLOWED_LEAF_KEY_ALGORITHMS;

/** The OpenAPI description of `csrPem`, shared by the v2 issue and renew bodies. */
export const CSR_PEM_PROPERTY = {
  type: String,
  maxLength: MAX_CSR_PEM_LENGTH,
  description:
    'A PKCS#10 certificate request (RFC 2986) in PEM ("-----BEGIN CERTIFICATE REQUEST-----") whose ' +
    'self-signature verifies; its key must be one of: ' +
    ALLOWED_CSR_KEY_ALGORITHMS.join(', ') +
    ' (RSA-2048 too in a deployment whose key algorithm is RSA-2048, under an RSA CA)' +
    '. Only its public key is used: subject and SANs come from this request body and the tenant policy, ' +
    'never from the CSR. The answer then has no privateKeyPem; responseFormat must be Text and ' +
    'passwordProtected false.',
};

/** With a CSR the CA holds no key, so nothing can be delivered but the certificate itself. */
export function csrDeliveryErrors(request: {
  csrPem?: string;
  responseFormat?: string;
  passwordProtected?: boolean;
}): FieldError[] {
  if (request.csrPem === undefined) return [];
  const errors: FieldError[] = [];
  if ((request.responseFormat ?? ResponseFormat.Text) !== ResponseFormat.Text) {
    errors.push({
      field: 'responseFormat',
      message: 'must be Text with csrPem: there is no key to download',
    });
  }
  if (request.passwordProtected === true) {
    errors.push({
      field: 'passwordProtected',
      message: 'must be false with csrPem: a PKCS#12 needs the private key, which stays with you',
    });
  }
  return errors;
}
