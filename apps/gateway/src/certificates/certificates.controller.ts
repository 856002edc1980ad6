import { Body, Controller, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { Response } from 'express';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import {
  CaError,
  CertificateDetail,
  IssuanceApi,
  IssuancePattern,
  IssueCertificateRequest,
  IssueCertificateResponse,
  RenewCertificateRequest,
  RenewCertificateResponse,
  RevokeCertificateRequest,
  RevokeCertificateResult,
} from '@ca/contracts';
import { RpcClient } from '@ca/messaging';
import { CurrentPrincipal, RequireScope } from '../auth/auth.decorators';
import { AuthenticatedPrincipal, Scope } from '../auth/authenticated-principal';
import { RequestWithId } from '../http/request-id';
import { UuidParamPipe } from '../http/uuid-param.pipe';
import { CertificateDeliverer } from './certificate-delivery';
import { V1_LIST_FORMAT, inventoryChunks, streamInventory } from './inventory-stream';
import { LeafKeyAlgorithms } from './leaf-key-algorithm';
import { generateLeafKeyPairOf, withPrivateKey } from './leaf-key-pair';
import { writeCommand } from './write-command';
import {
  CertificateDetailDoc,
  CertificateListDoc,
  ExpiringCertificateListDoc,
  IssueCertificateResponseDoc,
  RenewCertificateResponseDoc,
  RevokeCertificateResponseDoc,
} from './certificate.responses';

const DEFAULT_EXPIRING_DAYS = 30;

/** docs/api.md (v1). Each call is one request to the issuance context. */
@ApiTags('Certificates')
@ApiBearerAuth()
@Controller('v1/certificates')
export class CertificatesController {
  constructor(
    private readonly issuance: RpcClient<IssuanceApi>,
    private readonly deliverer: CertificateDeliverer,
    private readonly keyAlgorithms: LeafKeyAlgorithms,
  ) {}

  @Post()
  @HttpCode(200)
  @RequireScope(Scope.CertificatesWrite)
  @ApiOperation({ summary: 'Issue a client certificate', operationId: 'issueCertificate' })
  @ApiOkResponse({ type: IssueCertificateResponseDoc })
  async issue(
    @Body() body: IssueCertificateRequest,
    @CurrentPrincipal() principal: AuthenticatedPrincipal,
    @Req() req: RequestWithId,
  ): Promise<IssueCertificateResponse> {
    const command = writeCommand(principal, req);
    // docs/api.md#key-algorithms: P-256, or the family of the tenant's CA in a deployment that chose another.
    const keys = await generateLeafKeyPairOf(await this.keyAlgorithms.chooseV1(command));
    const issued = await this.issuance.send(IssuancePattern.IssueCertificate, {
      ...command,
      subjectPublicKey: keys.subjectPublicKey,
      request: body,
    });
    return this.deliverer.issueResponse(withPrivateKey(issued, keys), body);
  }

  @Get()
  @RequireScope(Scope.CertificatesRead)
  @ApiOperation({ summary: "List the tenant's certificates", operationId: 'listCertificates' })
  @ApiOkResponse({ type: CertificateListDoc })
  // Unpaged, as the specification has it, but written page by page (flat memory at any size).
  list(@CurrentPrincipal() principal: AuthenticatedPrincipal, @Res() res: Response): Promise<void> {
    return streamInventory(res, inventoryChunks(this.issuance, principal.tenantId, {}, 'v1'), V1_LIST_FORMAT);
  }

  // Declared before ':certificateId' so that "expiring" is not taken for an id.
  @Get('expiring')
  @RequireScope(Scope.CertificatesRead)
  @ApiOperation({
    summary: 'Active certificates expiring within a window, soonest first',
    operationId: 'listExpiringCertificates',
  })
  @ApiQuery({
    name: 'days',
    required: false,
    schema: { type: 'integer', minimum: 0, maximum: 3650, default: DEFAULT_EXPIRING_DAYS },
  })
  @ApiOkResponse({ type: ExpiringCertificateListDoc })
  expiring(@Query('days') days: unknown, @CurrentPrincipal() principal: AuthenticatedPrincipal) {
    return this.issuance.send(IssuancePattern.ListExpiringCertificates, {
      tenantId: principal.tenantId,
      days: parseDays(days),
    });
  }

  @Get(':certificateId')
  @RequireScope(Scope.CertificatesRead)
  @ApiOperation({ summary: 'Get one certificate', operationId: 'getCertificate' })
  @ApiOkResponse({ type: CertificateDetailDoc })
  get(
    @Param('certificateId', new UuidParamPipe()) certificateId: string,
    @CurrentPrincipal() principal: AuthenticatedPrincipal,
  ): Promise<CertificateDetail> {
    return this.issuance.send(IssuancePattern.GetCertificate, {
      tenantId: principal.tenantId,
      certificateId,
    });
  }

  @Post(':certificateId/renew')
  @HttpCode(200)
  @RequireScope(Scope.CertificatesWrite)
  @ApiOperation({
    summary: 'Renew: a new certificate with the same attributes',
    operationId: 'renewCertificate',
  })
  @ApiOkResponse({ type: RenewCertificateResponseDoc })
  async renew(
    @Param('certificateId', new UuidParamPipe()) certificateId: string,
    @Body() body: RenewCertificateRequest,
    @CurrentPrincipal() principal: AuthenticatedPrincipal,
    @Req() req: RequestWithId,
  ): Promise<RenewCertificateResponse> {
    const command = writeCommand(principal, req);
    const keys = await generateLeafKeyPairOf(await this.keyAlgorithms.chooseV1(command));
    const renewed = await this.issuance.send(IssuancePattern.RenewCertificate, {
      ...command,
      subjectPublicKey: keys.subjectPublicKey,
      certificateId,
      request: body,
    });
    return this.deliverer.renewResponse(withPrivateKey(renewed, keys), body);
  }

  @Post(':certificateId/revoke')
  @HttpCode(200)
  @RequireScope(Scope.CertificatesWrite)
  @ApiOperation({ summary: 'Revoke with an RFC 5280 reason code', operationId: 'revokeCertificate' })
  @ApiOkResponse({ type: RevokeCertificateResponseDoc })
  revoke(
    @Param('certificateId', new UuidParamPipe()) certificateId: string,
    @Body() body: RevokeCertificateRequest,
    @CurrentPrincipal() principal: AuthenticatedPrincipal,
    @Req() req: RequestWithId,
  ): Promise<RevokeCertificateResult> {
    return this.issuance.send(IssuancePattern.RevokeCertificate, {
      ...writeCommand(principal, req),
      certificateId,
      request: body,
    });
  }
}

/** docs/api.md#expiring-certificates: `days` is a whole number from 0 to 3650, default 30. */
function parseDays(raw: unknown): number {
  if (raw === undefined) return DEFAULT_EXPIRING_DAYS;
  // `days=1&days=2` arrives as an array: refused like any other non-number.
  const days = typeof raw === 'string' && /^\d{1,4}$/.test(raw) ? Number(raw) : NaN;
  if (!(days >= 0 && days <= 3650)) {
    throw CaError.validation([{ field: 'days', message: 'days must be a whole number from 0 to 3650' }]);
  }
  return days;
}
