import { registerDecorator, type ValidationArguments, type ValidationOptions } from 'class-validator';
import { ISO_3166_ALPHA_2_CODES } from './iso-3166-country-codes';

/** ub-common-name, ub-organization-name, ub-organizational-unit-name (RFC 5280 Appendix A.1). */
export const UB_NAME_ATTRIBUTE = 64;

// A high surrogate not followed by a low one, or a low one not preceded by a high one.
const UNPAIRED_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
// C0 controls (NUL, BEL, line breaks, ...), DEL and the C1 controls: never text in a Name.
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * Why `value` cannot be a DirectoryString attribute of a subject or issuer Name (CN, O, OU), or
 * undefined when it can. Lengths count Unicode characters (code points), as the upper bounds of
 * RFC 5280 Appendix A.1 do, not UTF-16 units; leading or trailing white space is refused because
 * RFC 4518 2.6.1 ignores it when names are compared, so two "different" names would match.
 */
export function subjectFieldProblem(value: string, maxCharacters = UB_NAME_ATTRIBUTE): string | undefined {
  if (UNPAIRED_SURROGATE.test(value)) return 'must not contain unpaired surrogates';
  if (CONTROL_CHARACTER.test(value)) {
    return 'must not contain control characters (NUL, BEL, line breaks, DEL, C1)';
  }
  const characters = countCharacters(value);
  if (characters === 0) return 'must not be empty';
  if (characters > maxCharacters) return `must be at most ${maxCharacters} characters`;
  if (value.trim() !== value) return 'must not start or end with white space';
  return undefined;
}

/** Whether `value` is an assigned ISO 3166-1 alpha-2 code, in upper case (X.520 CountryName). */
export function isAssignedCountryCode(value: string): boolean {
  return ISO_3166_ALPHA_2_CODES.has(value);
}

/** Unicode code points, so that one emoji is one character as a user counts it. */
export function countCharacters(value: string): number {
  let count = 0;
  for (let i = 0; i < value.length; i++) {
    const unit = value.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < value.length) {
      const next = value.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
  }
  return count;
}

/** class-validator rule: a string that `subjectFieldProblem` accepts (other types: IsString's error). */
export function IsSubjectField(maxCharacters = UB_NAME_ATTRIBUTE, options?: ValidationOptions) {
  return (target: object, propertyName: string): void =>
    registerDecorator({
      name: 'isSubjectField',
      target: target.constructor,
      propertyName,
      options,
      validator: {
        validate: (value: unknown) =>
          typeof value !== 'string' || subjectFieldProblem(value, maxCharacters) === undefined,
        defaultMessage: (args?: ValidationArguments) =>
          `${args?.property} ${subjectFieldProblem(String(args?.value), maxCharacters)}`,
      },
    });
}

/** class-validator rule: an assigned ISO 3166-1 alpha-2 country code (refuses `XX`, `UK`, `us`). */
export function IsCountryCode(options?: ValidationOptions) {
  return (target: object, propertyName: string): void =>
    registerDecorator({
      name: 'isCountryCode',
      target: target.constructor,
      propertyName,
      options,
      validator: {
        validate: (value: unknown) => typeof value === 'string' && isAssignedCountryCode(value),
        defaultMessage: (args?: ValidationArguments) =>
          `${args?.property} must be an assigned ISO 3166-1 alpha-2 code in upper case (e.g. US, GB; UK and XX are not assigned)`,
      },
    });
}
