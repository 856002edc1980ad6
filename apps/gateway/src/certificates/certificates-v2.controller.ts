import { Body, Controller, HttpCode, Param, Post, Req, UseInterceptors } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  IssuanceApi,
  IssuancePattern,
  IssueCertificateResponse,
  IssueCertificateV2Request,
  IssuedCertificate,
  KeyAlgorithm,
  ReleaseHoldRequest,
  ReleaseHoldResult,
  RenewCertificateResponse,
  RenewCertificateV2Request,
  SubjectPublicKey,
} from '@ca/contracts';
import { RpcClient } from '@ca/messaging';
import { CurrentPrincipal, RequireScope } from '../auth/auth.decorators';
import { AuthenticatedPrincipal, Scope } from '../auth/authenticated-principal';
import { RequestWithId } from '../http/request-id';
import { UuidParamPipe } from '../http/uuid-param.pipe';
import { CertificateDeliverer, issuanceRequestOf } from './certificate-delivery';
import { subjectKeyFromCsr } from './csr-subject-key';
import { LeafKeyAlgorithms } from './leaf-key-algorithm';
import { CertificateWithKey, LeafKeyPair, generateLeafKeyPairOf, withPrivateKey } from './leaf-key-pair';
import { OptionalBodyInterceptor } from './optional-body.interceptor';
import { writeCommand } from './write-command';
import {
  IssueCertificateResponseDoc,
  ReleaseHoldResponseDoc,
  RenewCertificateResponseDoc,
} from './certificate.responses';

const RELEASE_HOLD_DESCRIPTION = [
  'Ends a certificate hold: a certificate revoked with reasonCode `CertificateHold` is Active again',
  '(or Expired, past its notAfter); `revokedAt` is gone from get and list. Its entry is left out of',
  'the next CRL, a full CRL simply stops listing it (RFC 5280 5.3.1: removeFromCRL is for delta CRLs,',
  'which this CA does not publish), and OCSP answers `good` within 5 seconds, as fast as a revocation',
  'reaches it. It can be held or revoked again later.',
  '',
  'The body is optional; its `reason` is free text kept with the hold history for the audit, never',
  'published. Refusals: 409 CERTIFICATE_NOT_ON_HOLD when the certificate is not revoked, or revoked',
  'with any other reason (a revocation for good is final); 409 CERTIFICATE_LIMIT_REACHED when the',
  'tenant already holds as many Active certificates as its plan allows (the released certificate would',
  'be one more; revoke another first); 403 for a certificate of another tenant; 404 for an unknown one.',
].join('\n');

const CSR_DESCRIPTION = [
  'The key is made by the service and returned once in privateKeyPem, unless the body has csrPem: a',
  'PKCS#10 request whose self-signature verifies and whose key is of an allowed type. Only its public key',
  'is certified; subject and SANs come from this body and the issuance policy, never from the CSR. The',
  'answer then has no privateKeyPem. Refusals: 400 CSR_INVALID (not one PEM request, or over 16 KiB),',
  'CSR_SIGNATURE_INVALID, CSR_KEY_NOT_ALLOWED, CSR_KEY_COMPROMISED (a key revoked for keyCompromise);',
  'VALIDATION_FAILED for responseFormat File or',
  'passwordProtected true with csrPem.',
].join('\n');

/** docs/api.md#issue-a-certificate-v2, docs/api.md#renew-a-certificate (v2): usage, SANs, must-staple and custom extensions. */
@ApiTags('Certificates v2')
@ApiBearerAuth()
@Controller('v2/certificates')
export class CertificatesV2Controller {
  constructor(
    private readonly issuance: RpcClient<IssuanceApi>,
    private readonly deliverer: CertificateDeliverer,
    private readonly keyAlgorithms: LeafKeyAlgorithms,
  ) {}

  @Post()
  @HttpCode(200)
  @RequireScope(Scope.CertificatesWrite)
  @ApiOperation({
    summary: 'Issue a certificate with usage, SANs, must-staple and custom extensions',
    description: CSR_DESCRIPTION,
    operationId: 'issueCertificateV2',
  })
  @ApiOkResponse({ type: IssueCertificateResponseDoc })
  async issue(
    @Body() body: IssueCertificateV2Request,
    @CurrentPrincipal() principal: AuthenticatedPrincipal,
    @Req() req: RequestWithId,
  ): Promise<IssueCertificateResponse> {
    const command = writeCommand(principal, req);
    const key = await this.subjectKeyOf(body, command);
    const issued = await this.issuance.send(IssuancePattern.IssueCertificateV2, {
      ...command,
      subjectPublicKey: key.subjectPublicKey,
      request: issuanceRequestOf(body),
    });
    return this.deliverer.issueResponse(key.certified(issued), body);
  }

  @Post(':certificateId/renew')
  @HttpCode(200)
  @RequireScope(Scope.CertificatesWrite)
  @ApiOperation({
    summary: 'Renew, keeping clientId, usage, SANs and custom extensions',
    description: `${CSR_DESCRIPTION}\n\nA certificate issued for a CSR is renewed with a csrPem only (400 VALIDATION_FAILED on csrPem otherwise): the CA never had its key.`,
    operationId: 'renewCertificateV2',
  })
  @ApiOkResponse({ type: RenewCertificateResponseDoc })
  async renew(
    @Param('certificateId', new UuidParamPipe()) certificateId: string,
    @Body() body: RenewCertificateV2Request,
    @CurrentPrincipal() principal: AuthenticatedPrincipal,
    @Req() req: RequestWithId,
  ): Promise<RenewCertificateResponse> {
    const command = writeCommand(principal, req);
    const key = await this.subjectKeyOf(body, command);
    const renewed = await this.issuance.send(IssuancePattern.RenewCertificateV2, {
      ...command,
      subjectPublicKey: key.subjectPublicKey,
      certificateId,
      request: issuanceRequestOf(body),
    });
    return this.deliverer.renewResponse(key.certified(renewed), body);
  }

  /**
   * The key of the certificate asked for: the caller's CSR (docs/api.md#csr-issuance), or a pair
   * the gateway makes now (docs/api.md#key-algorithms), whose private half joins the answer.
   */
  private async subjectKeyOf(
    body: { csrPem?: string; keyAlgorithm?: KeyAlgorithm },
    command: { tenantId: string; principal: string; requestId?: string },
  ): Promise<{
    subjectPublicKey: SubjectPublicKey;
    certified(issued: IssuedCertificate): CertificateWithKey;
  }> {
    if (body.csrPem !== undefined)
      return { subjectPublicKey: subjectKeyFromCsr(body.csrPem), certified: (issued) => issued };
    const keys: LeafKeyPair = await generateLeafKeyPairOf(
      await this.keyAlgorithms.choose(body.keyAlgorithm, command),
    );
    return { subjectPublicKey: keys.subjectPublicKey, certified: (issued) => withPrivateKey(issued, keys) };
  }

  @Post(':certificateId/release-hold')
  @HttpCode(200)
  @RequireScope(Scope.CertificatesWrite)
  @ApiOperation({
    summary: 'Release a certificate hold (CertificateHold) so the certificate is valid again',
    description: RELEASE_HOLD_DESCRIPTION,
    operationId: 'releaseCertificateHold',
  })
  @ApiBody({ type: ReleaseHoldRequest, required: false })
  @ApiOkResponse({ type: ReleaseHoldResponseDoc })
  @UseInterceptors(OptionalBodyInterceptor)
  releaseHold(
    @Param('certificateId', new UuidParamPipe()) certificateId: string,
    @Body() body: ReleaseHoldRequest,
    @CurrentPrincipal() principal: AuthenticatedPrincipal,
    @Req() req: RequestWithId,
  ): Promise<ReleaseHoldResult> {
    return this.issuance.send(IssuancePattern.ReleaseCertificateHold, {
      ...writeCommand(principal, req),
      certificateId,
      request: body,
    });
  }
}
