import { ApiProperty } from '@nestjs/swagger';
import { InitializeCaResult } from '@ca/contracts';

/** OpenAPI shape of the spec 4.1.1 response. */
export class InitializeCaResponse implements InitializeCaResult {
  @ApiProperty({ format: 'uuid' })
  caId!: string;

  @ApiProperty({ description: 'PEM of the self-signed CA certificate.' })
  certificatePem!: string;

  @ApiProperty({ format: 'date-time' })
  expiresAt!: string;
}
