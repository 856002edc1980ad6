import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { IssuanceApi, IssuancePattern } from '@ca/contracts';
import { CertificateReplacements } from './certificate-replacements';

type Request<P extends keyof IssuanceApi> = IssuanceApi[P][0];
type Reply<P extends keyof IssuanceApi> = Promise<IssuanceApi[P][1]>;

/** docs/api.md#renewal-information, docs/api.md#replace-now: renewal windows and the replace-now drill. */
@Controller()
export class ReplacementController {
  constructor(private readonly replacements: CertificateReplacements) {}

  @MessagePattern(IssuancePattern.GetRenewalInfo)
  renewalInfo(
    @Payload() query: Request<typeof IssuancePattern.GetRenewalInfo>,
  ): Reply<typeof IssuancePattern.GetRenewalInfo> {
    return this.replacements.renewalInfo(query);
  }

  @MessagePattern(IssuancePattern.ReplaceLeaves)
  replaceLeaves(
    @Payload() command: Request<typeof IssuancePattern.ReplaceLeaves>,
  ): Reply<typeof IssuancePattern.ReplaceLeaves> {
    return this.replacements.replaceLeaves(command);
  }

  @MessagePattern(IssuancePattern.GetReplacement)
  replacement(
    @Payload() query: Request<typeof IssuancePattern.GetReplacement>,
  ): Reply<typeof IssuancePattern.GetReplacement> {
    return this.replacements.replacement(query);
  }
}
