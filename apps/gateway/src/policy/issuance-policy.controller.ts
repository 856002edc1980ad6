import { Body, Controller, Delete, Get, HttpCode, Put, Req } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiOkResponse,
  ApiOperation,
  ApiProperty,
  ApiPropertyOptional,
  ApiTags,
} from '@nestjs/swagger';
import {
  ALL_POLICY_USAGES,
  IssuanceApi,
  IssuancePattern,
  IssuancePolicy,
  IssuancePolicyRequest,
  PolicyUsage,
  KEY_GENERATION_TIMEOUT_MS,
} from '@ca/contracts';
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

  @ApiProperty({
    enum: ALL_POLICY_USAGES,
    isArray: true,
    nullable: true,
    example: ['Client', 'Server'],
    description:
      'The leaf usages allowed, Client first; both when the PUT had none; null when the tenant has no ' +
      'policy (both usages).',
  })
  allowedUsages!: PolicyUsage[] | null;

  @ApiPropertyOptional({
    format: 'uuid',
    description:
      'PUT and DELETE: present when the change made a new issuing CA carrying the new EKU and name ' +
      'constraints; it signs the leaves from now on.',
  })
  issuingCaId?: string;

  @ApiPropertyOptional({
    format: 'uuid',
    description: 'With issuingCaId: the issuing CA it replaced, now retired.',
  })
  retiredIssuingCaId?: string;
}

const POLICY_DESCRIPTION = [
  'The DNS suffixes under which this tenant may certify names, on the admin API (issue and renew,',
  'v1 and v2) and through ACME. A name is allowed when it equals a suffix or ends with "." + suffix',
  '(`example.com` allows `example.com`, `api.example.com` and `*.example.com`, not `badexample.com`).',
  'Every DNS SAN and a host-name common name are checked; a name outside gets 400',
  'NAME_NOT_ALLOWED_BY_POLICY naming it. An empty list allows no DNS name; DELETE removes the policy.',
  'allowedUsages (Client, Server; absent: both) limits the leaf usage: v1 leaves are Client, ACME leaves',
  'Server, ClientAndServer needs both; another usage gets 400 USAGE_NOT_ALLOWED_BY_POLICY.',
  "The tenant's issuing CA carries the policy as critical name constraints (RFC 5280 4.2.1.10) and as",
  'its EKU (clientAuth, serverAuth): a change makes a new issuing CA with the new constraints in the',
  'same request (the old one is retired), answered as issuingCaId and retiredIssuingCaId.',
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
    return this.issuance.send(
      IssuancePattern.SetIssuancePolicy,
      {
        ...writeCommand(principal, req),
        allowedDnsSuffixes: body.allowedDnsSuffixes,
        allowedUsages: body.allowedUsages ?? null,
      },
      { timeoutMs: KEY_GENERATION_TIMEOUT_MS },
    );
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
    description:
      'Answers the policy now in force: `{"allowedDnsSuffixes": null, "allowedUsages": null}`, also ' +
      'when there was none. An issuing CA made under the policy is rolled over to one without name ' +
      'constraints and with both EKU purposes.',
    operationId: 'deleteIssuancePolicy',
  })
  @ApiOkResponse({ type: IssuancePolicyDoc })
  remove(
    @CurrentPrincipal() principal: AuthenticatedPrincipal,
    @Req() req: RequestWithId,
  ): Promise<IssuancePolicy> {
    return this.issuance.send(
      IssuancePattern.SetIssuancePolicy,
      {
        ...writeCommand(principal, req),
        allowedDnsSuffixes: null,
      },
      { timeoutMs: KEY_GENERATION_TIMEOUT_MS },
    );
  }
}
