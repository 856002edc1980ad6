import { Body, Controller, HttpCode, Param, Post, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  IssuanceApi,
  IssuancePattern,
  IssueCertificateResponse,
  IssueCertificateV2Request,
  RenewCertificateResponse,
  RenewCertificateV2Request,
} from '@ca/contracts';
import { RpcClient } from '@ca/messaging';
import { CurrentPrincipal, RequireScope } from '../auth/auth.decorators';
import { AuthenticatedPrincipal, Scope } from '../auth/authenticated-principal';
import { RequestWithId } from '../http/request-id';
import { UuidParamPipe } from '../http/uuid-param.pipe';
import { CurrentTenant, TenantContext } from '../tenants/tenant-context';
import { CertificateDeliverer, withoutDeliveryProfile } from './certificate-delivery';
import { writeCommand } from './write-command';
import { IssueCertificateResponseDoc, RenewCertificateResponseDoc } from './certificate.responses';

/** Spec 4.1 operations 8 and 9 (v2): usage, SANs, must-staple and custom extensions. */
@ApiTags('Certificates v2')
@ApiBearerAuth()
@Controller('v2/certificates')
export class CertificatesV2Controller {
  constructor(
    private readonly issuance: RpcClient<IssuanceApi>,
    private readonly deliverer: CertificateDeliverer,
  ) {}

  @Post()
  @HttpCode(200)
  @RequireScope(Scope.CertificatesWrite)
  @ApiOperation({
    summary: 'Issue a certificate with usage, SANs, must-staple and custom extensions',
    operationId: 'issueCertificateV2',
  })
  @ApiOkResponse({ type: IssueCertificateResponseDoc })
  async issue(
    @Body() body: IssueCertificateV2Request,
    @CurrentPrincipal() principal: AuthenticatedPrincipal,
    @CurrentTenant() tenant: TenantContext,
    @Req() req: RequestWithId,
  ): Promise<IssueCertificateResponse> {
    const issued = await this.issuance.send(IssuancePattern.IssueCertificateV2, {
      ...writeCommand(principal, req),
      certificateLimit: tenant.certificateLimit,
      request: withoutDeliveryProfile(body),
    });
    return this.deliverer.issueResponse(issued, body);
  }

  @Post(':certificateId/renew')
  @HttpCode(200)
  @RequireScope(Scope.CertificatesWrite)
  @ApiOperation({
    summary: 'Renew, keeping clientId, usage, SANs and custom extensions',
    operationId: 'renewCertificateV2',
  })
  @ApiOkResponse({ type: RenewCertificateResponseDoc })
  async renew(
    @Param('certificateId', new UuidParamPipe()) certificateId: string,
    @Body() body: RenewCertificateV2Request,
    @CurrentPrincipal() principal: AuthenticatedPrincipal,
    @CurrentTenant() tenant: TenantContext,
    @Req() req: RequestWithId,
  ): Promise<RenewCertificateResponse> {
    const renewed = await this.issuance.send(IssuancePattern.RenewCertificateV2, {
      ...writeCommand(principal, req),
      certificateLimit: tenant.certificateLimit,
      certificateId,
      request: withoutDeliveryProfile(body),
    });
    return this.deliverer.renewResponse(renewed, body);
  }
}
