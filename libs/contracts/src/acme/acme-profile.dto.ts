import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsInt, IsOptional, IsString, Length, Max, Min } from 'class-validator';
import { MAX_SERVER_VALIDITY_DAYS } from '../issuance/issue-certificate-v2.dto';

/** docs/api.md#acme-profiles: body of PUT /v2/acme/profiles/{name}. */
export class PutAcmeProfileRequest {
  @ApiProperty({ minLength: 1, maxLength: 255, description: "Shown in the directory's meta.profiles." })
  @IsString()
  @Length(1, 255)
  description!: string;

  @ApiProperty({ minimum: 1, maximum: MAX_SERVER_VALIDITY_DAYS })
  @IsInt()
  @Min(1)
  @Max(MAX_SERVER_VALIDITY_DAYS)
  validityDays!: number;

  @ApiProperty({
    enum: ['Server', 'ClientAndServer'],
    description: "Must be allowed by the tenant's policy.",
  })
  @IsIn(['Server', 'ClientAndServer'])
  usage!: 'Server' | 'ClientAndServer';

  @ApiPropertyOptional({ default: false, description: 'The profile of orders that name none.' })
  @IsOptional()
  @IsBoolean()
  default?: boolean;
}
