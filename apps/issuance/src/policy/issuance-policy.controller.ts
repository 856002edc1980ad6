import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  GetIssuancePolicyQuery,
  IssuancePattern,
  IssuancePolicy,
  SetIssuancePolicyCommand,
} from '@ca/contracts';
import { IssuancePolicyHandler } from './issuance-policy.handler';
import { ResponderPublication } from '../publication/responder-publication';

/** The request/reply surface of the tenants' issuance policies (the gateway and ACME ask here). */
@Controller()
export class IssuancePolicyController {
  constructor(
    private readonly handler: IssuancePolicyHandler,
    private readonly publication: ResponderPublication,
  ) {}

  @MessagePattern(IssuancePattern.SetIssuancePolicy)
  set(@Payload() command: SetIssuancePolicyCommand): Promise<IssuancePolicy> {
    // A policy change may make a new issuing CA (docs/api.md#issuance-policy): published before the answer.
    return this.publication.aroundCaChange(command?.tenantId, () => this.handler.set(command));
  }

  @MessagePattern(IssuancePattern.GetIssuancePolicy)
  get(@Payload() query: GetIssuancePolicyQuery): Promise<IssuancePolicy> {
    return this.handler.get(query);
  }
}
