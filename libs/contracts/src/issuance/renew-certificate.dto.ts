import { ALLOWED_LEAF_KEY_ALGORITHMS, KeyAlgorithm, LEAF_KEY_ALGORITHM_PROPERTY } from './key-algorithm';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { FieldError } from '../common/ca-error';
import { KeyedCommand, TenantCommand } from '../common/tenant-command';
import { ResponseFormat } from './certificate-status';
import type { CertificateDelivery } from './issue-certificate.dto';
import { CSR_PEM_PROPERTY, csrDeliveryErrors } from './csr.rules';
import { PKCS12_PROFILE_PROPERTY, Pkcs12Profile } from './issue-certificate-v2.dto';

/** docs/api.md#renew-a-certificate: body of POST /v1/certificates/{id}/renew. */
export class RenewCertificateRequest {
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

/** Body of POST /v2/certificates/{id}/renew: the v1 body plus the PKCS#12 profile and a CSR. */
export class RenewCertificateV2Request extends RenewCertificateRequest {
  @ApiPropertyOptional(LEAF_KEY_ALGORITHM_PROPERTY)
  @IsOptional()
  @IsIn(ALLOWED_LEAF_KEY_ALGORITHMS)
  keyAlgorithm?: KeyAlgorithm;

  @ApiPropertyOptional(PKCS12_PROFILE_PROPERTY)
  @IsOptional()
  @IsIn(Object.values(Pkcs12Profile))
  pkcs12Profile?: Pkcs12Profile;

  /** The new key comes from this CSR (docs/api.md#csr-issuance); read by the gateway only. */
  @ApiPropertyOptional(CSR_PEM_PROPERTY)
  @IsOptional()
  @IsString()
  csrPem?: string;

  static crossFieldErrors(request: RenewCertificateV2Request): FieldError[] {
    return csrDeliveryErrors(request);
  }
}

export interface RenewCertificateCommand extends TenantCommand, KeyedCommand {
  certificateId: string;
  request: RenewCertificateRequest;
}

/** docs/api.md#renew-a-certificate response; the delivery fields follow the presence rules of docs/api.md#issuance-answer. */
export interface RenewCertificateResponse extends CertificateDelivery {
  newCertificateId: string;
  serialNumber: string;
  expiresAt: string;
}
