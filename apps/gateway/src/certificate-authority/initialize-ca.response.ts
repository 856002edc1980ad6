import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  CaHierarchy,
  CaRole,
  CaSummary,
  RevokeCaResult,
  InitializeCaResult,
  InitializeCaV2Result,
  KEY_ALGORITHMS,
  KeyAlgorithm,
} from '@ca/contracts';

/** OpenAPI shape of the docs/api.md#initialize-the-ca response. */
export class InitializeCaResponse implements InitializeCaResult {
  @ApiProperty({ format: 'uuid' })
  caId!: string;

  @ApiProperty({ description: 'PEM of the self-signed CA certificate.' })
  certificatePem!: string;

  @ApiProperty({ format: 'date-time' })
  expiresAt!: string;
}

/** One CA of docs/api.md#initialize-the-ca-v2. */
export class IssuingCaResponse {
  @ApiProperty({ format: 'uuid' })
  caId!: string;

  @ApiProperty({ description: 'PEM of the issuing CA certificate, signed by the root.' })
  certificatePem!: string;

  @ApiProperty({ format: 'date-time' })
  expiresAt!: string;
}

/** OpenAPI shape of the docs/api.md#initialize-the-ca-v2 response: the root's fields plus the issuing CA. */
export class InitializeCaV2Response extends InitializeCaResponse implements InitializeCaV2Result {
  @ApiProperty({ enum: Object.values(CaHierarchy) })
  hierarchy!: CaHierarchy;

  @ApiProperty({ enum: KEY_ALGORITHMS })
  keyAlgorithm!: KeyAlgorithm;

  @ApiPropertyOptional({ type: IssuingCaResponse, description: 'Absent for RootOnly.' })
  issuingCa?: IssuingCaResponse;
}

/** docs/api.md#list-the-cas element. */
export class CaSummaryResponse implements CaSummary {
  @ApiProperty({ format: 'uuid' }) caId!: string;
  @ApiProperty({ enum: Object.values(CaRole) }) role!: CaRole;
  @ApiProperty({ description: 'Uppercase hex, as openssl prints it.' }) serialNumber!: string;
  @ApiProperty({ example: 'C=US, O=Acme, CN=Acme Partner Root' }) subject!: string;
  @ApiProperty({ format: 'date-time' }) notBefore!: string;
  @ApiProperty({ format: 'date-time' }) notAfter!: string;
  @ApiProperty({ enum: KEY_ALGORITHMS }) keyAlgorithm!: KeyAlgorithm;
  @ApiProperty({ enum: ['active', 'expired', 'revoked'] }) state!: 'active' | 'expired' | 'revoked';
  @ApiProperty() certificatePem!: string;
}

export class CaListResponse {
  @ApiProperty({ type: [CaSummaryResponse] }) cas!: CaSummaryResponse[];
}

/** docs/api.md#revoke-an-issuing-ca response. */
export class RevokeCaResponse implements RevokeCaResult {
  @ApiProperty({ format: 'uuid' }) caId!: string;
  @ApiProperty({ description: 'Uppercase hex, as openssl prints it.' }) serialNumber!: string;
  @ApiProperty({ format: 'date-time' }) revokedAt!: string;
}
