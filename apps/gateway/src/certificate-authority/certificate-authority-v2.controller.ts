import { Body, Controller, Get, HttpCode, Param, Post, Put, Req } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiExtraModels,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import {
  AddIssuingCaRequest,
  AddIssuingCaResult,
  AddPendingIssuingCaResult,
  CaSummary,
  InitializeCaV2Request,
  InitializeCaV2Result,
  InitializeExternalRootResult,
  IssuanceApi,
  IssuancePattern,
  RenewRootRequest,
  RenewRootResult,
  ReplaceLeavesRequest,
  ReplaceLeavesResult,
  ReplacementProgress,
  RevokeCaRequest,
  RevokeCaResult,
  UploadCaCertificateRequest,
  UploadCaCertificateResult,
  KEY_GENERATION_TIMEOUT_MS,
} from '@ca/contracts';
import { RpcClient } from '@ca/messaging';
import { CurrentPrincipal, RequireScope } from '../auth/auth.decorators';
import { AuthenticatedPrincipal, Scope } from '../auth/authenticated-principal';
import { RequestWithId } from '../http/request-id';
import { UuidParamPipe } from '../http/uuid-param.pipe';
import {
  AddIssuingCaResponse,
  AddPendingIssuingCaResponse,
  CaListResponse,
  InitializeCaV2Response,
  InitializeExternalRootResponse,
  RenewRootResponse,
  ReplaceLeavesResponse,
  ReplacementResponse,
  RevokeCaResponse,
  UploadCaCertificateResponse,
} from './initialize-ca.response';

/**
 * docs/api.md#initialize-the-ca-v2, docs/api.md#add-an-issuing-ca, docs/api.md#renew-the-root,
 * docs/api.md#list-the-cas, docs/api.md#revoke-an-issuing-ca, docs/api.md#external-root and
 * docs/api.md#replace-now.
 */
@ApiTags('Certificate authority')
@ApiExtraModels(
  InitializeCaV2Response,
  InitializeExternalRootResponse,
  AddIssuingCaResponse,
  AddPendingIssuingCaResponse,
)
@ApiBearerAuth()
@Controller('v2/ca')
export class CertificateAuthorityV2Controller {
  constructor(private readonly issuance: RpcClient<IssuanceApi>) {}

  @Post('initialize')
  @HttpCode(200)
  @RequireScope(Scope.CaAdmin)
  @ApiOperation({
    summary:
      "Initialize the tenant's CAs: a root and an issuing CA (default), a root only, or an issuing CA for your corporate root (ExternalRoot: answers its CSR)",
    operationId: 'initializeCaV2',
  })
  @ApiOkResponse({
    description:
      'RootAndIssuing and RootOnly: our root (and issuing CA). ExternalRoot: the pending issuing CA and its CSR.',
    schema: {
      oneOf: [
        { $ref: getSchemaPath(InitializeCaV2Response) },
        { $ref: getSchemaPath(InitializeExternalRootResponse) },
      ],
    },
  })
  initialize(
    @Body() body: InitializeCaV2Request,
    @CurrentPrincipal() principal: AuthenticatedPrincipal,
    @Req() req: RequestWithId,
  ): Promise<InitializeCaV2Result | InitializeExternalRootResult> {
    return this.issuance.send(
      IssuancePattern.InitializeCaV2,
      {
        tenantId: principal.tenantId,
        principal: principal.subject,
        requestId: req.requestId,
        request: body,
      },
      { timeoutMs: KEY_GENERATION_TIMEOUT_MS },
    );
  }

  @Post('issuing')
  @HttpCode(201)
  @RequireScope(Scope.CaAdmin)
  @ApiOperation({
    summary:
      'Add an issuing CA under the root: it signs leaves from now on; the previous one is retired but keeps its CRL and OCSP. Under a corporate root (ExternalRoot): a pending CA and its CSR, active once its certificate is uploaded',
    operationId: 'addIssuingCa',
  })
  @ApiCreatedResponse({
    description:
      'Our root: the new issuing CA, already signing. A corporate root: the pending CA and its CSR; the current CA signs until PUT /v2/ca/{caId}/certificate.',
    schema: {
      oneOf: [
        { $ref: getSchemaPath(AddIssuingCaResponse) },
        { $ref: getSchemaPath(AddPendingIssuingCaResponse) },
      ],
    },
  })
  addIssuing(
    @Body() body: AddIssuingCaRequest,
    @CurrentPrincipal() principal: AuthenticatedPrincipal,
    @Req() req: RequestWithId,
  ): Promise<AddIssuingCaResult | AddPendingIssuingCaResult> {
    return this.issuance.send(
      IssuancePattern.AddIssuingCa,
      {
        tenantId: principal.tenantId,
        principal: principal.subject,
        requestId: req.requestId,
        request: body ?? {},
      },
      { timeoutMs: KEY_GENERATION_TIMEOUT_MS },
    );
  }

  @Post('root/renew')
  @HttpCode(201)
  @RequireScope(Scope.CaAdmin)
  @ApiOperation({
    summary:
      'Renew the root: a new root, a cross certificate signed by the old root, a new issuing CA under the new root; the old ones are retired',
    operationId: 'renewRoot',
  })
  @ApiCreatedResponse({ type: RenewRootResponse })
  renewRoot(
    @Body() body: RenewRootRequest,
    @CurrentPrincipal() principal: AuthenticatedPrincipal,
    @Req() req: RequestWithId,
  ): Promise<RenewRootResult> {
    return this.issuance.send(
      IssuancePattern.RenewRoot,
      {
        tenantId: principal.tenantId,
        principal: principal.subject,
        requestId: req.requestId,
        request: body ?? {},
      },
      { timeoutMs: KEY_GENERATION_TIMEOUT_MS },
    );
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

  @Put(':caId/certificate')
  @HttpCode(200)
  @RequireScope(Scope.CaAdmin)
  @ApiOperation({
    summary:
      "Upload the certificate your corporate root made from a pending issuing CA's CSR, with its chain up to the root: the CA becomes active",
    operationId: 'uploadCaCertificate',
  })
  @ApiOkResponse({ type: UploadCaCertificateResponse })
  uploadCertificate(
    @Param('caId', new UuidParamPipe()) caId: string,
    @Body() body: UploadCaCertificateRequest,
    @CurrentPrincipal() principal: AuthenticatedPrincipal,
    @Req() req: RequestWithId,
  ): Promise<UploadCaCertificateResult> {
    return this.issuance.send(IssuancePattern.UploadCaCertificate, {
      tenantId: principal.tenantId,
      principal: principal.subject,
      requestId: req.requestId,
      caId,
      request: body,
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

  @Post(':caId/cross-certificate/revoke')
  @HttpCode(200)
  @RequireScope(Scope.CaAdmin)
  @ApiOperation({
    summary:
      "Revoke the cross certificate of a renewed root: the previous root's CRL lists it, so relying parties anchored on that root stop reaching the renewed one",
    operationId: 'revokeCrossCertificate',
  })
  @ApiOkResponse({ type: RevokeCaResponse })
  revokeCrossCertificate(
    @Param('caId', new UuidParamPipe()) caId: string,
    @Body() body: RevokeCaRequest,
    @CurrentPrincipal() principal: AuthenticatedPrincipal,
    @Req() req: RequestWithId,
  ): Promise<RevokeCaResult> {
    return this.issuance.send(IssuancePattern.RevokeCrossCertificate, {
      tenantId: principal.tenantId,
      principal: principal.subject,
      requestId: req.requestId,
      caId,
      request: body,
    });
  }

  @Post(':caId/replace-leaves')
  @HttpCode(200)
  @RequireScope(Scope.CaAdmin)
  @ApiOperation({
    summary:
      'Replace now: every Active leaf of this CA gets an ACME renewal window (RFC 9773) that has already begun, so ARI clients renew at their next check',
    operationId: 'replaceLeaves',
  })
  @ApiOkResponse({ type: ReplaceLeavesResponse })
  replaceLeaves(
    @Param('caId', new UuidParamPipe()) caId: string,
    @Body() body: ReplaceLeavesRequest,
    @CurrentPrincipal() principal: AuthenticatedPrincipal,
    @Req() req: RequestWithId,
  ): Promise<ReplaceLeavesResult> {
    return this.issuance.send(IssuancePattern.ReplaceLeaves, {
      tenantId: principal.tenantId,
      principal: principal.subject,
      requestId: req.requestId,
      caId,
      request: body,
    });
  }

  @Get(':caId/replacement')
  @RequireScope(Scope.CertificatesRead)
  @ApiOperation({
    summary: 'How many leaves asked to be replaced (replace-leaves) are replaced, and how many remain',
    operationId: 'getReplacement',
  })
  @ApiOkResponse({ type: ReplacementResponse })
  replacement(
    @Param('caId', new UuidParamPipe()) caId: string,
    @CurrentPrincipal() principal: AuthenticatedPrincipal,
    @Req() req: RequestWithId,
  ): Promise<ReplacementProgress> {
    return this.issuance.send(IssuancePattern.GetReplacement, {
      tenantId: principal.tenantId,
      principal: principal.subject,
      requestId: req.requestId,
      caId,
    });
  }
}
