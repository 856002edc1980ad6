import { Body, Controller, Get, HttpCode, Param, Post, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  CaSummary,
  InitializeCaV2Request,
  InitializeCaV2Result,
  IssuanceApi,
  IssuancePattern,
  RevokeCaRequest,
  RevokeCaResult,
} from '@ca/contracts';
import { RpcClient } from '@ca/messaging';
import { CurrentPrincipal, RequireScope } from '../auth/auth.decorators';
import { AuthenticatedPrincipal, Scope } from '../auth/authenticated-principal';
import { RequestWithId } from '../http/request-id';
import { UuidParamPipe } from '../http/uuid-param.pipe';
import { CaListResponse, InitializeCaV2Response, RevokeCaResponse } from './initialize-ca.response';

/** docs/api.md#initialize-the-ca-v2, docs/api.md#list-the-cas and docs/api.md#revoke-an-issuing-ca. */
@ApiTags('Certificate authority')
@ApiBearerAuth()
@Controller('v2/ca')
export class CertificateAuthorityV2Controller {
  constructor(private readonly issuance: RpcClient<IssuanceApi>) {}

  @Post('initialize')
  @HttpCode(200)
  @RequireScope(Scope.CaAdmin)
  @ApiOperation({
    summary: "Initialize the tenant's CAs: a root and an issuing CA (default), or a root only",
    operationId: 'initializeCaV2',
  })
  @ApiOkResponse({ type: InitializeCaV2Response })
  initialize(
    @Body() body: InitializeCaV2Request,
    @CurrentPrincipal() principal: AuthenticatedPrincipal,
    @Req() req: RequestWithId,
  ): Promise<InitializeCaV2Result> {
    return this.issuance.send(IssuancePattern.InitializeCaV2, {
      tenantId: principal.tenantId,
      principal: principal.subject,
      requestId: req.requestId,
      request: body,
    });
  }

  @Get()
  @RequireScope(Scope.CaAdmin)
  @ApiOperation({ summary: "List the tenant's CAs with their state", operationId: 'listCas' })
  @ApiOkResponse({ type: CaListResponse })
  list(
    @CurrentPrincipal() principal: AuthenticatedPrincipal,
    @Req() req: RequestWithId,
  ): Promise<{ cas: CaSummary[] }> {
    return this.issuance.send(IssuancePattern.ListCas, {
      tenantId: principal.tenantId,
      principal: principal.subject,
      requestId: req.requestId,
    });
  }

  @Post(':caId/revoke')
  @HttpCode(200)
  @RequireScope(Scope.CaAdmin)
  @ApiOperation({
    summary: "Revoke the tenant's issuing CA (key compromise): root.crl lists it, OCSP answers revoked",
    operationId: 'revokeCa',
  })
  @ApiOkResponse({ type: RevokeCaResponse })
  revoke(
    @Param('caId', new UuidParamPipe()) caId: string,
    @Body() body: RevokeCaRequest,
    @CurrentPrincipal() principal: AuthenticatedPrincipal,
    @Req() req: RequestWithId,
  ): Promise<RevokeCaResult> {
    return this.issuance.send(IssuancePattern.RevokeCa, {
      tenantId: principal.tenantId,
      principal: principal.subject,
      requestId: req.requestId,
      caId,
      request: body,
    });
  }
}
