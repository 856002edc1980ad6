import { ApiProperty } from '@nestjs/swagger';
import { InitializeCaResult } from '@ca/contracts';

/** OpenAPI shape of the docs/api.md#initialize-the-ca response. */
export class InitializeCaResponse implements InitializeCaResult {
  @ApiProperty({ format: 'uuid' })
  caId!: string;

  @ApiProperty({ description: 'PEM of the self-signed CA certificate.' })
  certificatePem!: string;

  @ApiProperty({ format: 'date-time' })
  expiresAt!: string;
}
