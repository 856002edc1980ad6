import { KeyAlgorithm } from './key-algorithm';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsEmpty,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
} from 'class-validator';
import { FieldError } from '../common/ca-error';
import { KeyedCommand, TenantCommand } from '../common/tenant-command';
import { csrDeliveryErrors } from './csr.rules';
import { Pkcs12Profile } from './pkcs12-profile';
import { CsrPemField, LeafKeyAlgorithmField, Pkcs12ProfileField } from './request-fields';
import { dnsNameProblem, looksLikeHostName } from './dns-name.rules';
import { IssueCertificateRequest } from './issue-certificate.dto';
import { countCharacters } from './subject-field.rules';

/** docs/api.md#issue-a-certificate-v2 usage and the extended key usages it stands for (RFC 5280 4.2.1.12). */
export const CertificateUsage = {
  Client: 'Client',
  Server: 'Server',
  ClientAndServer: 'ClientAndServer',
} as const;
export type CertificateUsage = (typeof CertificateUsage)[keyof typeof CertificateUsage];

export const MAX_SANS = 50;
export const MAX_CUSTOM_EXTENSIONS = 10;
export const MAX_CUSTOM_EXTENSION_TEXT = 255;
/** docs/api.md#issue-a-certificate-v2: certificates usable by TLS servers live at most 825 days. */
export const MAX_SERVER_VALIDITY_DAYS = 825;

/** docs/api.md#issue-a-certificate-v2: body of POST /v2/certificates — all v1 fields plus usage, SANs, must-staple, custom extensions. */
export class IssueCertificateV2Request extends IssueCertificateRequest {
  @LeafKeyAlgorithmField()
  keyAlgorithm?: KeyAlgorithm;

  @ApiPropertyOptional({ enum: Object.values(CertificateUsage), default: CertificateUsage.Client })
  @IsOptional()
  @IsIn(Object.values(CertificateUsage))
  usage?: CertificateUsage;

  @ApiPropertyOptional({
    type: [String],
    maxItems: MAX_SANS,
    description:
      'DNS names (single-level wildcard allowed as the left-most label); required for Server and ClientAndServer.',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_SANS)
  @IsString({ each: true })
  subjectAlternativeNames?: string[];

  @ApiPropertyOptional({
    default: false,
    description: 'TLS Feature status_request (RFC 7633); Server and ClientAndServer only.',
  })
  @IsOptional()
  @IsBoolean()
  mustStaple?: boolean;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string', maxLength: MAX_CUSTOM_EXTENSION_TEXT },
    maxProperties: MAX_CUSTOM_EXTENSIONS,
    description:
      'Embedded as extensions 1.3.6.1.4.1.99999.2.{n} holding SEQUENCE { key, value } (UTF8String).',
  })
  @IsOptional()
  @IsObject()
  // Kept as sent: class-transformer would drop keys that name an Object.prototype method
  // (`toString`, `valueOf`), silently losing an extension the caller asked for. Prototype-polluting
  // keys are refused before this runs (validateDto).
  @Transform(({ obj }) => (obj as { customExtensions?: unknown }).customExtensions)
  customExtensions?: Record<string, string>;

  @Pkcs12ProfileField()
  pkcs12Profile?: Pkcs12Profile;

  @CsrPemField()
  csrPem?: string;

  /** Run by validateDto, in the gateway and again in issuance, once the per-field rules passed. */
  static crossFieldErrors(request: IssueCertificateV2Request): FieldError[] {
    return v2IssuanceRuleErrors(request);
  }
}

/**
 * The rules of docs/api.md#issue-a-certificate-v2 that span fields or entries, one FieldError per offending field or entry
 * (run after the per-field class-validator rules have passed).
 */
export function v2IssuanceRuleErrors(request: IssueCertificateV2Request): FieldError[] {
  const errors: FieldError[] = [];
  const usage = request.usage ?? CertificateUsage.Client;
  const serverUsage = usage !== CertificateUsage.Client;
  const names = request.subjectAlternativeNames ?? [];
  if (serverUsage && names.length === 0) {
    errors.push({
      field: 'subjectAlternativeNames',
      message: `at least one DNS name is required for usage ${usage}`,
    });
  }
  const seen = new Set<string>();
  names.forEach((name, index) => {
    const field = `subjectAlternativeNames[${index}]`;
    const problem = dnsNameProblem(name);
    if (problem) errors.push({ field, message: `"${name}" ${problem}` });
    else if (seen.has(name.toLowerCase())) errors.push({ field, message: `"${name}" is listed twice` });
    seen.add(name.toLowerCase());
  });
  if (serverUsage) errors.push(...serverCommonNameErrors(request.commonName, names));
  if (serverUsage && request.validityDays > MAX_SERVER_VALIDITY_DAYS) {
    errors.push({
      field: 'validityDays',
      message: `must be at most ${MAX_SERVER_VALIDITY_DAYS} for usage ${usage}`,
    });
  }
  if (request.mustStaple === true && !serverUsage) {
    errors.push({ field: 'mustStaple', message: 'applies only to usage Server or ClientAndServer' });
  }
  errors.push(...customExtensionErrors(request.customExtensions));
  errors.push(...csrDeliveryErrors(request));
  return errors;
}

/**
 * A server certificate's CN written like a host name becomes one of its DNS SANs (CA/B BR 7.1.4.3:
 * the CN is one of the SAN values; issuance adds it, lower-cased, when it is missing), so it must
 * pass the SAN rules and fit into the list.
 */
function serverCommonNameErrors(commonName: string, names: readonly string[]): FieldError[] {
  if (typeof commonName !== 'string' || !looksLikeHostName(commonName)) return [];
  const problem = dnsNameProblem(commonName);
  if (problem) return [{ field: 'commonName', message: `"${commonName}" ${problem}` }];
  const listed = names.some((name) => name.toLowerCase() === commonName.toLowerCase());
  if (!listed && names.length >= MAX_SANS) {
    return [
      {
        field: 'commonName',
        message: `must be one of subjectAlternativeNames: a host-name CN is added to them, and they already hold ${MAX_SANS} names`,
      },
    ];
  }
  return [];
}

function customExtensionErrors(extensions: Record<string, unknown> | undefined): FieldError[] {
  if (extensions === undefined) return [];
  const entries = Object.entries(extensions);
  const errors: FieldError[] = [];
  if (entries.length > MAX_CUSTOM_EXTENSIONS) {
    errors.push({ field: 'customExtensions', message: `at most ${MAX_CUSTOM_EXTENSIONS} entries` });
  }
  for (const [key, value] of entries) {
    const field = `customExtensions.${key}`;
    if (key.length === 0 || countCharacters(key) > MAX_CUSTOM_EXTENSION_TEXT) {
      errors.push({
        field: 'customExtensions',
        message: `keys must be 1 to ${MAX_CUSTOM_EXTENSION_TEXT} characters`,
      });
    }
    if (typeof value !== 'string') errors.push({ field, message: 'values must be strings' });
    else if (countCharacters(value) > MAX_CUSTOM_EXTENSION_TEXT) {
      errors.push({ field, message: `values must be at most ${MAX_CUSTOM_EXTENSION_TEXT} characters` });
    }
  }
  return errors;
}

export interface IssueCertificateV2Command extends TenantCommand, KeyedCommand {
  request: IssueCertificateV2Request | Omit<IssueCertificateV2Request, 'commonName'>;
  /**
   * Sent by acme only (docs/api.md#acme-certificate-profile): the subject has no CN because none of
   * the names fits in one (RFC 5280 ub-common-name, 64); `request` is then an
   * IssueCertificateWithoutCnRequest. The admin API always names a CN.
   */
  withoutCommonName?: boolean;
  /**
   * Sent by acme only: the tenant's certificate this one replaces (RFC 9773 5, ACME `replaces`),
   * recorded as its predecessor like a renewal's.
   */
  replaces?: string;
}

/**
 * A v2 request without `commonName`, for a server certificate named by its SANs alone. Not a body
 * of the admin API (whose issue requests require a CN): only `withoutCommonName` commands carry it.
 */
export class IssueCertificateWithoutCnRequest extends IssueCertificateV2Request {
  static override crossFieldErrors(request: IssueCertificateV2Request): FieldError[] {
    const errors = v2IssuanceRuleErrors(request);
    if ((request.usage ?? CertificateUsage.Client) === CertificateUsage.Client) {
      errors.push({
        field: 'usage',
        message: 'a certificate without CN must be for Server or ClientAndServer',
      });
    }
    return errors;
  }
}
// commonName must be absent. Applied to the inherited property rather than redeclaring it;
// IsOptional lets the parent's CN rules pass when it is absent (it covers every rule of the property).
IsOptional()(IssueCertificateWithoutCnRequest.prototype, 'commonName');
IsEmpty({ message: 'must be absent: this certificate has no CN' })(
  IssueCertificateWithoutCnRequest.prototype,
  'commonName',
);
