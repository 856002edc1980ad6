import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsInt, IsNotEmpty, IsOptional, IsString, Length, Max, Min } from 'class-validator';
import { ResponseFormat } from './certificate-status';
import { CSR_PEM_PROPERTY } from './csr-pem';
import { KEY_ALGORITHMS, LEAF_KEY_ALGORITHM_PROPERTY } from './key-algorithm';
import { PKCS12_PROFILE_PROPERTY, Pkcs12Profile } from './pkcs12-profile';
import { IsCountryCode, IsSubjectField, UB_NAME_ATTRIBUTE } from './subject-field.rules';

/**
 * The request-body fields several issuance DTOs share, each one decorator that carries both its
 * OpenAPI description (docs/api.md) and its validation rules, so the bodies cannot drift apart.
 */

type FieldDecorator = (target: object, property: string) => void;

/** Applies `decorators` as if written one above the other over the property (the lowest first). */
function stacked(...decorators: FieldDecorator[]): FieldDecorator {
  return (target, property) => {
    for (const decorator of [...decorators].reverse()) decorator(target, property);
  };
}

/** A CN, O or OU of the subject Name (RFC 5280 Appendix A.1 upper bound). */
export const SubjectNameField = (example: string) =>
  stacked(
    ApiProperty({ minLength: 1, maxLength: UB_NAME_ATTRIBUTE, example }),
    IsString(),
    IsSubjectField(UB_NAME_ATTRIBUTE),
  );

/** The subject's C: an ISO 3166-1 alpha-2 code. */
export const CountryField = () =>
  stacked(
    ApiProperty({ minLength: 2, maxLength: 2, pattern: '^[A-Z]{2}$', example: 'US' }),
    IsString(),
    IsCountryCode(),
  );

/** A whole validity period, from 1 to `maximum` (years or days). */
export const ValidityField = (maximum: number, example: number) =>
  stacked(
    ApiProperty({ type: 'integer', format: 'int32', minimum: 1, maximum, example }),
    IsInt(),
    Min(1),
    Max(maximum),
  );

/** docs/api.md#issuance-answer: inline PEMs or download links. */
export const ResponseFormatField = () =>
  stacked(
    ApiPropertyOptional({ enum: Object.values(ResponseFormat), default: ResponseFormat.Text }),
    IsOptional(),
    IsIn(Object.values(ResponseFormat)),
  );

/** docs/api.md#issuance-answer: a PKCS#12 and its password in the answer. */
export const PasswordProtectedField = () =>
  stacked(ApiPropertyOptional({ default: false }), IsOptional(), IsBoolean());

/**
 * The key generated for a v2 leaf (docs/api.md#key-algorithms); RSA-2048 passes here and the
 * gateway, which knows the deployment's key algorithm, refuses it where it is not that.
 */
export const LeafKeyAlgorithmField = () =>
  stacked(ApiPropertyOptional(LEAF_KEY_ALGORITHM_PROPERTY), IsOptional(), IsIn(KEY_ALGORITHMS));

/** The encryption of a v2 passwordProtected PKCS#12. */
export const Pkcs12ProfileField = () =>
  stacked(ApiPropertyOptional(PKCS12_PROFILE_PROPERTY), IsOptional(), IsIn(Object.values(Pkcs12Profile)));

/** docs/api.md#csr-issuance: read by the gateway only; issuance receives the command's subjectPublicKey. */
export const CsrPemField = () => stacked(ApiPropertyOptional(CSR_PEM_PROPERTY), IsOptional(), IsString());

/** Why a certificate or CA is revoked, in the caller's words. */
export const AuditReasonField = () =>
  stacked(
    ApiProperty({
      minLength: 1,
      maxLength: 255,
      description: 'Free text for the audit log; never in the CRL or OCSP answers.',
    }),
    IsString(),
    IsNotEmpty(),
    Length(1, 255),
  );
