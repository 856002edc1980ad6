import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  GetIssuancePolicyQuery,
  IssuancePattern,
  IssuancePolicy,
  SetIssuancePolicyCommand,
} from '@ca/contracts';
import { IssuancePolicyHandler } from './issuance-policy.handler';

/** The request/reply surface of the tenants' issuance policies (the gateway and ACME ask here). */
@Controller()
export class IssuancePolicyController {
  constructor(private readonly handler: IssuancePolicyHandler) {}

  @MessagePattern(IssuancePattern.SetIssuancePolicy)
  set(@Payload() command: SetIssuancePolicyCommand): Promise<IssuancePolicy> {
    return this.handler.set(command);
  }

  @MessagePattern(IssuancePattern.GetIssuancePolicy)
  get(@Payload() query: GetIssuancePolicyQuery): Promise<IssuancePolicy> {
    return this.handler.get(query);
  }
}
