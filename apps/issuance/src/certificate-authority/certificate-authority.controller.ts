import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  CaSummary,
  InitializeCaCommand,
  InitializeCaResult,
  InitializeCaV2Command,
  InitializeCaV2Result,
  IssuancePattern,
  RevokeCaCommand,
  RevokeCaResult,
  TenantCommand,
} from '@ca/contracts';
import { CaQueries } from './ca-queries';
import { InitializeCaHandler } from './initialize-ca.handler';
import { RevokeCaHandler } from './revoke-ca.handler';

/** The request/reply surface of the certificate-authority aggregate. */
@Controller()
export class CertificateAuthorityController {
  constructor(
    private readonly initializeCa: InitializeCaHandler,
    private readonly queries: CaQueries,
    private readonly revokeCa: RevokeCaHandler,
  ) {}

  @MessagePattern(IssuancePattern.InitializeCa)
  initialize(@Payload() command: InitializeCaCommand): Promise<InitializeCaResult> {
    return this.initializeCa.execute(command);
  }

  @MessagePattern(IssuancePattern.InitializeCaV2)
  initializeV2(@Payload() command: InitializeCaV2Command): Promise<InitializeCaV2Result> {
    return this.initializeCa.executeV2(command);
  }

  @MessagePattern(IssuancePattern.ListCas)
  list(@Payload() query: TenantCommand): Promise<{ cas: CaSummary[] }> {
    return this.queries.list(query);
  }

  @MessagePattern(IssuancePattern.RevokeCa)
  revoke(@Payload() command: RevokeCaCommand): Promise<RevokeCaResult> {
    return this.revokeCa.execute(command);
  }
}
