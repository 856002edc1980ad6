import { Body, Controller, Delete, Get, Inject, Param, Put, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { AcmeApi, AcmePattern, AcmeProfile, CaError, PutAcmeProfileRequest } from '@ca/contracts';
import { RpcClient } from '@ca/messaging';
import { CurrentPrincipal, RequireScope } from '../auth/auth.decorators';
import { AuthenticatedPrincipal, Scope } from '../auth/authenticated-principal';
import { RequestWithId } from '../http/request-id';
import { writeCommand } from '../certificates/write-command';
import { ACME_RPC } from './acme-rpc';
import { described } from '../openapi/request-bodies.openapi';

class AcmeProfileDoc extends described(PutAcmeProfileRequest) {
  @ApiProperty() name!: string;
  @ApiProperty() declare default: boolean;
}

class AcmeProfileListDoc {
  @ApiProperty({ type: [AcmeProfileDoc] }) profiles!: AcmeProfileDoc[];
}

const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/**
 * docs/api.md#acme-profiles: the tenant's ACME profiles (draft-ietf-acme-profiles), which ACME
 * clients choose in newOrder. The acme context keeps them and checks them against the policy.
 */
@ApiTags('ACME')
@ApiBearerAuth()
@Controller('v2/acme/profiles')
export class AcmeProfilesController {
  constructor(@Inject(ACME_RPC) private readonly acme: RpcClient<AcmeApi>) {}

  @Put(':name')
  @RequireScope(Scope.CaAdmin)
  @ApiOperation({
    summary:
      'Define or replace an ACME profile: the validity and usage of the certificates of orders that choose it',
    operationId: 'putAcmeProfile',
  })
  @ApiOkResponse({ type: AcmeProfileDoc })
  put(
    @Param('name') name: string,
    @Body() body: PutAcmeProfileRequest,
    @CurrentPrincipal() principal: AuthenticatedPrincipal,
    @Req() req: RequestWithId,
  ): Promise<AcmeProfile> {
    if (!PROFILE_NAME.test(name)) {
      throw CaError.validation([
        { field: 'name', message: 'must be 1 to 64 letters, digits, ".", "_" or "-"' },
      ]);
    }
    return this.acme.send(AcmePattern.PutProfile, {
      ...writeCommand(principal, req),
      profile: { ...body, name, default: body.default === true },
    });
  }

  @Get()
  @RequireScope(Scope.CertificatesRead)
  @ApiOperation({ summary: "List the tenant's ACME profiles", operationId: 'listAcmeProfiles' })
  @ApiOkResponse({ type: AcmeProfileListDoc })
  list(@CurrentPrincipal() principal: AuthenticatedPrincipal): Promise<{ profiles: AcmeProfile[] }> {
    return this.acme.send(AcmePattern.ListProfiles, { tenantId: principal.tenantId });
  }

  @Delete(':name')
  @RequireScope(Scope.CaAdmin)
  @ApiOperation({
    summary: 'Delete an ACME profile (orders that chose it get the default certificate)',
    operationId: 'deleteAcmeProfile',
  })
  @ApiOkResponse({ schema: { type: 'object', properties: { deleted: { type: 'boolean' } } } })
  delete(
    @Param('name') name: string,
    @CurrentPrincipal() principal: AuthenticatedPrincipal,
    @Req() req: RequestWithId,
  ): Promise<{ deleted: true }> {
    if (!PROFILE_NAME.test(name)) throw CaError.notFound('No ACME profile of this tenant has this name.');
    return this.acme.send(AcmePattern.DeleteProfile, { ...writeCommand(principal, req), name });
  }
}
