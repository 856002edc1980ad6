import { Body, Controller, HttpCode, Param, Post, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  IssuanceApi,
  IssuancePattern,
  IssueCertificateResponse,
  IssueCertificateV2Request,
  RenewCertificateRequest,
  RenewCertificateResponse,
} from '@ca/contracts';
import { RpcClient } from '@ca/messaging';
import { CurrentPrincipal, RequireScope } from '../auth/auth.decorators';
import { AuthenticatedPrincipal, Scope } from '../auth/authenticated-principal';
import { RequestWithId } from '../http/request-id';
import { UuidParamPipe } from '../http/uuid-param.pipe';
import { CertificateDeliverer } from './certificate-delivery';
import { generateLeafKeyPair, withPrivateKey } from './leaf-key-pair';
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
    @Req() req: RequestWithId,
  ): Promise<IssueCertificateResponse> {
    const keys = generateLeafKeyPair();
    const issued = await this.issuance.send(IssuancePattern.IssueCertificateV2, {
      ...writeCommand(principal, req),
      subjectPublicKey: keys.subjectPublicKey,
      request: body,
    });
    return this.deliverer.issueResponse(withPrivateKey(issued, keys), body);
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
    @Body() body: RenewCertificateRequest,
    @CurrentPrincipal() principal: AuthenticatedPrincipal,
    @Req() req: RequestWithId,
  ): Promise<RenewCertificateResponse> {
    const keys = generateLeafKeyPair();
    const renewed = await this.issuance.send(IssuancePattern.RenewCertificateV2, {
      ...writeCommand(principal, req),
      subjectPublicKey: keys.subjectPublicKey,
      certificateId,
      request: body,
    });
    return this.deliverer.renewResponse(withPrivateKey(renewed, keys), body);
  }
}
