import { FieldError, ResponseFormat } from '@ca/contracts';
import { ALLOWED_LEAF_KEY_ALGORITHMS } from './key-algorithm.rules';

/**
 * The key algorithms a CSR may carry (named as libs/pki's parser names them): those of any leaf
 * this CA certifies (docs/api.md#key-algorithms); Ed25519 is refused, and RSA-2048 unless the
 * deployment's key algorithm is RSA-2048 and the tenant's CA is RSA (issuance decides that).
 */
export const ALLOWED_CSR_KEY_ALGORITHMS: readonly string[] = ALLOWED_LEAF_KEY_ALGORITHMS;

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
