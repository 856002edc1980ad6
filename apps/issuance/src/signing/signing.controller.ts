import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  IssueOcspSignerCommand,
  IssueOcspSignerResult,
  IssuancePattern,
  SignCrlCommand,
  SignCrlResult,
} from '@ca/contracts';
import { IssueOcspSignerHandler } from './issue-ocsp-signer.handler';
import { SignCrlHandler } from './sign-crl.handler';

/** What issuance signs for the revocation context and the OCSP responder. */
@Controller()
export class SigningController {
  constructor(
    private readonly signCrlHandler: SignCrlHandler,
    private readonly ocspSignerHandler: IssueOcspSignerHandler,
  ) {}

  @MessagePattern(IssuancePattern.SignCrl)
  signCrl(@Payload() command: SignCrlCommand): Promise<SignCrlResult> {
    return this.signCrlHandler.execute(command);
  }

  @MessagePattern(IssuancePattern.IssueOcspSigner)
  issueOcspSigner(@Payload() command: IssueOcspSignerCommand): Promise<IssueOcspSignerResult> {
    return this.ocspSignerHandler.execute(command);
  }
}
