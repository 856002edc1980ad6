import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { TenantCommand } from '../common/tenant-command';
import { CaHierarchy, CaRole, KEY_ALGORITHMS, KeyAlgorithm } from './key-algorithm';
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

/** docs/api.md#initialize-the-ca-v2: body of POST /v2/ca/initialize, the v1 body plus the CA choices. */
export class InitializeCaV2Request extends InitializeCaRequest {
  @ApiPropertyOptional({ enum: Object.values(CaHierarchy), default: CaHierarchy.RootAndIssuing })
  @IsOptional()
  @IsIn(Object.values(CaHierarchy))
  hierarchy?: CaHierarchy;

  @ApiPropertyOptional({ enum: KEY_ALGORITHMS, default: KeyAlgorithm.P256 })
  @IsOptional()
  @IsIn(KEY_ALGORITHMS)
  keyAlgorithm?: KeyAlgorithm;
}

export interface InitializeCaCommand extends TenantCommand {
  request: InitializeCaRequest;
}

export interface InitializeCaV2Command extends TenantCommand {
  request: InitializeCaV2Request;
}

/** docs/api.md#initialize-the-ca response. */
export interface InitializeCaResult {
  caId: string;
  certificatePem: string;
  expiresAt: string;
}

/** docs/api.md#initialize-the-ca-v2 response: the v1 fields (the root) plus the issuing CA, if any. */
export interface InitializeCaV2Result extends InitializeCaResult {
  hierarchy: CaHierarchy;
  keyAlgorithm: KeyAlgorithm;
  /** Absent for RootOnly. */
  issuingCa?: { caId: string; certificatePem: string; expiresAt: string };
}

/** docs/api.md#list-the-cas: one of a tenant's CAs. */
export interface CaSummary {
  caId: string;
  role: CaRole;
  serialNumber: string;
  subject: string;
  notBefore: string;
  notAfter: string;
  keyAlgorithm: KeyAlgorithm;
  /** `active`, or `expired` once notAfter has passed. */
  state: 'active' | 'expired' | 'revoked';
  certificatePem: string;
}
