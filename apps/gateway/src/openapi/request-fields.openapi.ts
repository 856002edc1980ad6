import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  KEY_ALGORITHMS,
  MAX_CSR_PEM_LENGTH,
  Pkcs12Profile,
  ResponseFormat,
  UB_NAME_ATTRIBUTE,
} from '@ca/contracts';
import { ALLOWED_CSR_KEY_ALGORITHMS } from '@ca/domain';

/**
 * The OpenAPI descriptions (docs/api.md) of the request-body fields several bodies share; their
 * validation rules are the DTOs' in libs/contracts (request-fields.ts), field for field.
 */

/** How the OpenAPI of a `keyAlgorithm` field says where RSA-2048 is accepted. */
export const RSA_2048_NOTE =
  'RSA-2048 only in a deployment whose key algorithm (KEY_ALGORITHM) is RSA-2048; 400 elsewhere.';

/** A CN, O or OU of the subject Name (RFC 5280 Appendix A.1 upper bound). */
export const subjectNameProperty = (example: string) =>
  ApiProperty({ minLength: 1, maxLength: UB_NAME_ATTRIBUTE, example });

/** The subject's C: an ISO 3166-1 alpha-2 code. */
export const countryProperty = () =>
  ApiProperty({ minLength: 2, maxLength: 2, pattern: '^[A-Z]{2}$', example: 'US' });

/** A whole validity period, from 1 to `maximum` (years or days). */
export const validityProperty = (maximum: number, example: number) =>
  ApiProperty({ type: 'integer', format: 'int32', minimum: 1, maximum, example });

/** docs/api.md#issuance-answer: inline PEMs or download links. */
export const responseFormatProperty = () =>
  ApiPropertyOptional({ enum: Object.values(ResponseFormat), default: ResponseFormat.Text });

/** docs/api.md#issuance-answer: a PKCS#12 and its password in the answer. */
export const passwordProtectedProperty = () => ApiPropertyOptional({ default: false });

/** The key generated for a v2 leaf (docs/api.md#key-algorithms). */
export const leafKeyAlgorithmProperty = () =>
  ApiPropertyOptional({
    enum: KEY_ALGORITHMS,
    description:
      'The key the service generates for the certificate. Default: the family of the CA that signs it (P-256 under an EC CA, RSA-3072 under an RSA CA, RSA-2048 under an RSA-2048 CA of a deployment whose key algorithm is RSA-2048). RSA-2048 only in such a deployment.',
  });

/** The encryption of a v2 passwordProtected PKCS#12. */
export const pkcs12ProfileProperty = () =>
  ApiPropertyOptional({
    enum: Object.values(Pkcs12Profile),
    default: Pkcs12Profile.Modern,
    description:
      'Encryption of the PKCS#12 when passwordProtected is true (ignored otherwise). modern: PBES2 with ' +
      'PBKDF2-HMAC-SHA256 and AES-256-CBC, HMAC-SHA256 MAC (OpenSSL 3, GnuTLS, current Windows and Java). ' +
      'legacy: pbeWithSHAAnd3-KeyTripleDES-CBC and a SHA-1 MAC, for older Windows, the macOS Keychain ' +
      'and Java before 8u301.',
  });

/** docs/api.md#csr-issuance: `csrPem` of the v2 issue and renew bodies. */
export const csrPemProperty = () =>
  ApiPropertyOptional({
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
  });

/** Why a certificate or CA is revoked, in the caller's words. */
export const auditReasonProperty = () =>
  ApiProperty({
    minLength: 1,
    maxLength: 255,
    description: 'Free text for the audit log; never in the CRL or OCSP answers.',
  });
