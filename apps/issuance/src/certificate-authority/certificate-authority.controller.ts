import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { InitializeCaCommand, InitializeCaResult, IssuancePattern } from '@ca/contracts';
import { InitializeCaHandler } from './initialize-ca.handler';

/** The request/reply surface of the certificate-authority aggregate. */
@Controller()
export class CertificateAuthorityController {
  constructor(private readonly initializeCa: InitializeCaHandler) {}

  @MessagePattern(IssuancePattern.InitializeCa)
  initialize(@Payload() command: InitializeCaCommand): Promise<InitializeCaResult> {
    return this.initializeCa.execute(command);
  }
}
