import { IsBoolean, IsIn, IsInt, IsNotEmpty, IsOptional, IsString, Length, Max, Min } from 'class-validator';
import { ResponseFormat } from './certificate-status';
import { KEY_ALGORITHMS } from './key-algorithm';
import { Pkcs12Profile } from './pkcs12-profile';
import { IsCountryCode, IsSubjectField, UB_NAME_ATTRIBUTE } from './subject-field.rules';

/**
 * The validation rules of the request-body fields several issuance DTOs share, one decorator per
 * field so the bodies cannot drift apart. Their OpenAPI descriptions are the gateway's
 * (apps/gateway/src/openapi/request-fields.openapi.ts).
 */

type FieldDecorator = (target: object, property: string) => void;

/** Applies `decorators` as if written one above the other over the property (the lowest first). */
function stacked(...decorators: FieldDecorator[]): FieldDecorator {
  return (target, property) => {
    for (const decorator of [...decorators].reverse()) decorator(target, property);
  };
}

/** A CN, O or OU of the subject Name (RFC 5280 Appendix A.1 upper bound). */
export const SubjectNameField = () => stacked(IsString(), IsSubjectField(UB_NAME_ATTRIBUTE));

/** The subject's C: an ISO 3166-1 alpha-2 code. */
export const CountryField = () => stacked(IsString(), IsCountryCode());

/** A whole validity period, from 1 to `maximum` (years or days). */
export const ValidityField = (maximum: number) => stacked(IsInt(), Min(1), Max(maximum));

/** docs/api.md#issuance-answer: inline PEMs or download links. */
export const ResponseFormatField = () => stacked(IsOptional(), IsIn(Object.values(ResponseFormat)));

/** docs/api.md#issuance-answer: a PKCS#12 and its password in the answer. */
export const PasswordProtectedField = () => stacked(IsOptional(), IsBoolean());

/**
 * The key generated for a v2 leaf (docs/api.md#key-algorithms); RSA-2048 passes here and the
 * gateway, which knows the deployment's key algorithm, refuses it where it is not that.
 */
export const LeafKeyAlgorithmField = () => stacked(IsOptional(), IsIn(KEY_ALGORITHMS));

/** The encryption of a v2 passwordProtected PKCS#12. */
export const Pkcs12ProfileField = () => stacked(IsOptional(), IsIn(Object.values(Pkcs12Profile)));

/** docs/api.md#csr-issuance: read by the gateway only; issuance receives the command's subjectPublicKey. */
export const CsrPemField = () => stacked(IsOptional(), IsString());

/** Why a certificate or CA is revoked, in the caller's words. */
export const AuditReasonField = () => stacked(IsString(), IsNotEmpty(), Length(1, 255));
