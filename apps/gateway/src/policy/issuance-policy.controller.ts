import { Body, Controller, Delete, Get, HttpCode, Put, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { IssuanceApi, IssuancePattern, IssuancePolicy, IssuancePolicyRequest } from '@ca/contracts';
import { RpcClient } from '@ca/messaging';
import { CurrentPrincipal, RequireScope } from '../auth/auth.decorators';
import { AuthenticatedPrincipal, Scope } from '../auth/authenticated-principal';
import { RequestWithId } from '../http/request-id';
import { writeCommand } from '../certificates/write-command';

class IssuancePolicyDoc {
  @ApiProperty({
    type: [String],
    nullable: true,
    example: ['example.com'],
    description: 'Lower-cased, without duplicates; null when the tenant has no policy (any valid name).',
  })
  allowedDnsSuffixes!: string[] | null;
}

const POLICY_DESCRIPTION = [
  'The DNS suffixes under which this tenant may certify names, on the admin API (issue and renew,',
  'v1 and v2) and through ACME. A name is allowed when it equals a suffix or ends with "." + suffix',
  '(`example.com` allows `example.com`, `api.example.com` and `*.example.com`, not `badexample.com`).',
  'Every DNS SAN and a host-name common name are checked; a name outside gets 400',
  'NAME_NOT_ALLOWED_BY_POLICY naming it. An empty list allows no DNS name; DELETE removes the policy.',
].join('\n');

/** docs/api.md#issuance-policy: the tenant's issuance policy, kept by the issuance service. */
@ApiTags('Issuance policy')
@ApiBearerAuth()
@Controller('v2/policy')
export class IssuancePolicyController {
  constructor(private readonly issuance: RpcClient<IssuanceApi>) {}

  @Put()
  @HttpCode(200)
  @RequireScope(Scope.CaAdmin)
  @ApiOperation({
    summary: "Replace the tenant's issuance policy",
    description: POLICY_DESCRIPTION,
    operationId: 'setIssuancePolicy',
  })
  @ApiOkResponse({ type: IssuancePolicyDoc })
  set(
    @Body() body: IssuancePolicyRequest,
    @CurrentPrincipal() principal: AuthenticatedPrincipal,
    @Req() req: RequestWithId,
  ): Promise<IssuancePolicy> {
    return this.issuance.send(IssuancePattern.SetIssuancePolicy, {
      ...writeCommand(principal, req),
      allowedDnsSuffixes: body.allowedDnsSuffixes,
    });
  }

  @Get()
  @RequireScope(Scope.CaAdmin)
  @ApiOperation({
    summary: "Read the tenant's issuance policy",
    description: POLICY_DESCRIPTION,
    operationId: 'getIssuancePolicy',
  })
  @ApiOkResponse({ type: IssuancePolicyDoc })
  get(@CurrentPrincipal() principal: AuthenticatedPrincipal): Promise<IssuancePolicy> {
    return this.issuance.send(IssuancePattern.GetIssuancePolicy, { tenantId: principal.tenantId });
  }

  @Delete()
  @HttpCode(200)
  @RequireScope(Scope.CaAdmin)
  @ApiOperation({
    summary: "Remove the tenant's issuance policy (any valid name again)",
    description: 'Answers the policy now in force: `{"allowedDnsSuffixes": null}`, also when there was none.',
    operationId: 'deleteIssuancePolicy',
  })
  @ApiOkResponse({ type: IssuancePolicyDoc })
  remove(
    @CurrentPrincipal() principal: AuthenticatedPrincipal,
    @Req() req: RequestWithId,
  ): Promise<IssuancePolicy> {
    return this.issuance.send(IssuancePattern.SetIssuancePolicy, {
      ...writeCommand(principal, req),
      allowedDnsSuffixes: null,
    });
  }
}
