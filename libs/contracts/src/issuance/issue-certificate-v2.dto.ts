import { KeyAlgorithm } from './key-algorithm';
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
import { KeyedCommand, TenantCommand } from '../common/tenant-command';
import { Pkcs12Profile } from './pkcs12-profile';
import { CsrPemField, LeafKeyAlgorithmField, Pkcs12ProfileField } from './request-fields';
import { IssueCertificateRequest } from './issue-certificate.dto';

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
/** docs/api.md#issue-a-certificate-v2: certificates usable by TLS servers live at most 825 days (the OpenAPI maximum of an ACME profile's validityDays; libs/domain applies it to issuance). */
export const MAX_SERVER_VALIDITY_DAYS = 825;

/** docs/api.md#issue-a-certificate-v2: body of POST /v2/certificates — all v1 fields plus usage, SANs, must-staple, custom extensions. */
export class IssueCertificateV2Request extends IssueCertificateRequest {
  @LeafKeyAlgorithmField()
  keyAlgorithm?: KeyAlgorithm;

  @IsOptional()
  @IsIn(Object.values(CertificateUsage))
  usage?: CertificateUsage;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_SANS)
  @IsString({ each: true })
  subjectAlternativeNames?: string[];

  @IsOptional()
  @IsBoolean()
  mustStaple?: boolean;

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
}

export interface IssueCertificateV2Command extends TenantCommand, KeyedCommand {
  request: IssueCertificateV2Request | AcmeIssueRequest;
  /**
   * Sent by acme only (docs/api.md#acme-certificate-profile): the subject has no CN because none of
   * the names fits in one (RFC 5280 ub-common-name, 64); `request` is then an
   * AcmeCertificateWithoutCnRequest. The admin API always names a CN.
   */
  withoutCommonName?: boolean;
  /**
   * Sent by acme only: the tenant's certificate this one replaces (RFC 9773 5, ACME `replaces`),
   * recorded as its predecessor like a renewal's.
   */
  replaces?: string;
}

/**
 * acme's request (docs/api.md#acme-certificate-profile): O and C are the signing CA's, which
 * issuance sets when it signs (it reads that CA anyway), so acme need not ask for the tenant's
 * CAs on every order. Values sent all the same (by an acme older than this) are checked, then
 * replaced by the CA's.
 */
export class AcmeCertificateRequest extends IssueCertificateV2Request {}
/** What acme sends: AcmeCertificateRequest's fields, or AcmeCertificateWithoutCnRequest's. */
export type AcmeIssueRequest = Omit<IssueCertificateV2Request, 'organization' | 'country' | 'commonName'> &
  Partial<Pick<IssueCertificateV2Request, 'organization' | 'country' | 'commonName'>>;
IsOptional()(AcmeCertificateRequest.prototype, 'organization');
IsOptional()(AcmeCertificateRequest.prototype, 'country');

/**
 * acme's request for names that do not fit in a CN (RFC 5280 ub-common-name, 64): a server
 * certificate named by its SANs alone, O and C the signing CA's. Not a body of the admin API
 * (whose issue requests require a CN): only `withoutCommonName` commands carry it. Its usage must
 * then be Server or ClientAndServer (a rule of libs/domain).
 */
export class AcmeCertificateWithoutCnRequest extends AcmeCertificateRequest {}
IsOptional()(AcmeCertificateWithoutCnRequest.prototype, 'commonName');
IsEmpty({ message: 'must be absent: this certificate has no CN' })(
  AcmeCertificateWithoutCnRequest.prototype,
  'commonName',
);
