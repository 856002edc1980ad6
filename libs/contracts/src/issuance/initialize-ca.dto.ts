import { IsInt, IsNotEmpty, IsString, Length, Matches, Max, Min } from 'class-validator';
import { TenantCommand } from '../common/tenant-command';

/** Spec 4.1.1: body of POST /v1/ca/initialize. */
export class InitializeCaRequest {
  @IsString()
  @IsNotEmpty()
  @Length(1, 64)
  commonName!: string;

  @IsString()
  @IsNotEmpty()
  @Length(1, 64)
  organization!: string;

  @IsString()
  @Length(2, 2)
  @Matches(/^[A-Z]{2}$/, { message: 'country must be two uppercase letters (ISO 3166-1 alpha-2)' })
  country!: string;

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
