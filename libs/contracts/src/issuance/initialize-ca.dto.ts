import { ApiProperty } from '@nestjs/swagger';
import { IsInt, IsNotEmpty, IsString, Length, Matches, Max, Min } from 'class-validator';
import { TenantCommand } from '../common/tenant-command';

/** Spec 4.1.1: body of POST /v1/ca/initialize. */
export class InitializeCaRequest {
  @ApiProperty({ minLength: 1, maxLength: 64, example: 'Acme Partner Root' })
  @IsString()
  @IsNotEmpty()
  @Length(1, 64)
  commonName!: string;

  @ApiProperty({ minLength: 1, maxLength: 64, example: 'Acme' })
  @IsString()
  @IsNotEmpty()
  @Length(1, 64)
  organization!: string;

  @ApiProperty({ minLength: 2, maxLength: 2, pattern: '^[A-Z]{2}$', example: 'US' })
  @IsString()
  @Length(2, 2)
  @Matches(/^[A-Z]{2}$/, { message: 'country must be two uppercase letters (ISO 3166-1 alpha-2)' })
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

/** Spec 4.1.1 response. */
export interface InitializeCaResult {
  caId: string;
  certificatePem: string;
  expiresAt: string;
}
