import { IsBoolean, IsIn, IsInt, IsOptional, IsString, Length, Max, Min } from 'class-validator';
import { MAX_SERVER_VALIDITY_DAYS } from '../issuance/issue-certificate-v2.dto';

/** docs/api.md#acme-profiles: body of PUT /v2/acme/profiles/{name}. */
export class PutAcmeProfileRequest {
  @IsString()
  @Length(1, 255)
  description!: string;

  @IsInt()
  @Min(1)
  @Max(MAX_SERVER_VALIDITY_DAYS)
  validityDays!: number;

  @IsIn(['Server', 'ClientAndServer'])
  usage!: 'Server' | 'ClientAndServer';

  @IsOptional()
  @IsBoolean()
  default?: boolean;
}
