import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsInt, IsNotEmpty, IsOptional, IsString, Length, Max, Min } from 'class-validator';
import { KeyedCommand, TenantCommand } from '../common/tenant-command';
import { ResponseFormat } from './certificate-status';
import { IsCountryCode, IsSubjectField, UB_NAME_ATTRIBUTE } from './subject-field.rules';

/** docs/api.md#issue-a-certificate-v1: body of POST /v1/certificates. */
export class IssueCertificateRequest {
  @ApiProperty({
    minLength: 1,
    maxLength: 100,
    description: 'The OAuth2 client or system that will use the certificate for mTLS.',
  })
  @IsString()
  @IsNotEmpty()
  @Length(1, 100)
  clientId!: string;

  @ApiProperty({ minLength: 1, maxLength: 64, example: 'payments-client' })
  @IsString()
  @IsSubjectField(UB_NAME_ATTRIBUTE)
  commonName!: string;

  @ApiProperty({ minLength: 1, maxLength: 64, example: 'Acme' })
  @IsString()
  @IsSubjectField(UB_NAME_ATTRIBUTE)
  organization!: string;

  @ApiProperty({ minLength: 1, maxLength: 64, example: 'Payments' })
  @IsString()
  @IsSubjectField(UB_NAME_ATTRIBUTE)
  organizationalUnit!: string;

  @ApiProperty({ minLength: 2, maxLength: 2, pattern: '^[A-Z]{2}$', example: 'US' })
  @IsString()
  @IsCountryCode()
  country!: string;

  @ApiProperty({ type: 'integer', format: 'int32', minimum: 1, maximum: 3650, example: 365 })
  @IsInt()
  @Min(1)
  @Max(3650)
  validityDays!: number;

  @ApiPropertyOptional({ enum: Object.values(ResponseFormat), default: ResponseFormat.Text })
  @IsOptional()
  @IsIn(Object.values(ResponseFormat))
  responseFormat?: ResponseFormat;

  @ApiPropertyOptional({ default: false })
  @IsOptional()
  @IsBoolean()
  passwordProtected?: boolean;
}

export interface IssueCertificateCommand extends TenantCommand, KeyedCommand {
  request: IssueCertificateRequest;
}

/**
 * What issuance returns for a new certificate; the gateway shapes docs/api.md#issuance-answer, docs/api.md#renew-a-certificate from it and adds
 * the private key it generated itself (no private key ever crosses the bus).
 */
export interface IssuedCertificate {
  certificateId: string;
  serialNumber: string;
  expiresAt: string;
  certificatePem: string;
  /** The issuing tenant CA, for the PKCS#12 bundle the gateway builds (docs/api.md#issuance-answer passwordProtected). */
  caCertificatePem: string;
  /** docs/api.md#chains: the CA certificates from the issuer up to, not including, the root; '' when the root signed. */
  chainPem: string;
}

/**
 * How the key material is handed over (docs/api.md#issuance-answer): inline PEMs (Text) or pre-signed download
 * links (File), plus a PKCS#12 and its password when passwordProtected.
 */
export interface CertificateDelivery {
  /** responseFormat Text. */
  certificatePem?: string;
  /** Whenever certificatePem is present (docs/api.md#chains). */
  chainPem?: string;
  /** responseFormat Text; returned once, not stored. */
  privateKeyPem?: string;
  /** responseFormat File; pre-signed, valid one hour. */
  certificateDownloadUrl?: string;
  /** responseFormat File; pre-signed, valid one hour, works once. */
  privateKeyDownloadUrl?: string;
  /** responseFormat File. */
  downloadUrlExpiresAt?: string;
  /** passwordProtected and Text: the PKCS#12 in base64. */
  pfxBase64?: string;
  /** passwordProtected and File: pre-signed, valid one hour, works once. */
  pfxDownloadUrl?: string;
  /** passwordProtected: the PKCS#12 password, returned once, never stored. */
  password?: string;
}

/** docs/api.md#issuance-answer. */
export interface IssueCertificateResponse extends CertificateDelivery {
  certificateId: string;
  serialNumber: string;
  expiresAt: string;
}
