import { ApiProperty } from '@nestjs/swagger';
import { IsInt, IsString, Max, Min } from 'class-validator';
import { TenantCommand } from '../common/tenant-command';
import { IsCountryCode, IsSubjectField, UB_NAME_ATTRIBUTE } from './subject-field.rules';

/** docs/api.md#initialize-the-ca: body of POST /v1/ca/initialize. */
export class InitializeCaRequest {
  @ApiProperty({ minLength: 1, maxLength: 64, example: 'Acme Partner Root' })
  @IsString()
  @IsSubjectField(UB_NAME_ATTRIBUTE)
  commonName!: string;

  @ApiProperty({ minLength: 1, maxLength: 64, example: 'Acme' })
  @IsString()
  @IsSubjectField(UB_NAME_ATTRIBUTE)
  organization!: string;

  @ApiProperty({ minLength: 2, maxLength: 2, pattern: '^[A-Z]{2}$', example: 'US' })
  @IsString()
  @IsCountryCode()
  country!: string;

  @ApiProperty({ type: 'integer', format: 'int32', minimum: 1, maximum: 30, example: 10 })
  @IsInt()
  @Min(1)
  @Max(30)
  validityYears!: number;
}

export interface InitializeCaCommand extends TenantCommand {
  request: InitializeCaRequest;
}

/** docs/api.md#initialize-the-ca response. */
export interface InitializeCaResult {
  caId: string;
  certificatePem: string;
  expiresAt: string;
}
