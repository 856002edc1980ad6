import { Body, Controller, HttpCode, Post, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  InitializeCaRequest,
  InitializeCaResult,
  IssuanceApi,
  IssuancePattern,
  KEY_GENERATION_TIMEOUT_MS,
} from '@ca/contracts';
import { RpcClient } from '@ca/messaging';
import { CurrentPrincipal, RequireScope } from '../auth/auth.decorators';
import { AuthenticatedPrincipal, Scope } from '../auth/authenticated-principal';
import { RequestWithId } from '../http/request-id';
import { InitializeCaResponse } from './initialize-ca.response';

/** docs/api.md#initialize-the-ca. */
@ApiTags('Certificate authority')
@ApiBearerAuth()
@Controller('v1/ca')
export class CertificateAuthorityController {
  constructor(private readonly issuance: RpcClient<IssuanceApi>) {}

  @Post('initialize')
  @HttpCode(200)
  @RequireScope(Scope.CaAdmin)
  @ApiOperation({ summary: "Initialize the tenant's root CA", operationId: 'initializeCa' })
  @ApiOkResponse({ type: InitializeCaResponse })
  initialize(
    @Body() body: InitializeCaRequest,
    @CurrentPrincipal() principal: AuthenticatedPrincipal,
    @Req() req: RequestWithId,
  ): Promise<InitializeCaResult> {
    return this.issuance.send(
      IssuancePattern.InitializeCa,
      {
        tenantId: principal.tenantId,
        principal: principal.subject,
        requestId: req.requestId,
        request: body,
      },
      { timeoutMs: KEY_GENERATION_TIMEOUT_MS },
    );
  }
}
