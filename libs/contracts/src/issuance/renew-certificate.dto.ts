import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsInt, IsOptional, Max, Min } from 'class-validator';
import { KeyedCommand, TenantCommand } from '../common/tenant-command';
import { ResponseFormat } from './certificate-status';
import type { CertificateDelivery } from './issue-certificate.dto';

/** Spec 4.1.5: body of POST /v1/certificates/{id}/renew. */
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

export interface RenewCertificateCommand extends TenantCommand, KeyedCommand {
  certificateId: string;
  request: RenewCertificateRequest;
}

/** Spec 4.1.5 response; the delivery fields follow the presence rules of 4.1.4. */
export interface RenewCertificateResponse extends CertificateDelivery {
  newCertificateId: string;
  serialNumber: string;
  expiresAt: string;
}
