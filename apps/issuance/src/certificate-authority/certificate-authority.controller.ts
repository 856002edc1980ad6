import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  AddIssuingCaCommand,
  AddIssuingCaResult,
  AddPendingIssuingCaResult,
  assertCommandFields,
  CaHierarchy,
  CaSummary,
  InitializeCaCommand,
  InitializeCaResult,
  InitializeCaV2Command,
  InitializeCaV2Result,
  InitializeExternalRootResult,
  RenewRootCommand,
  RenewRootResult,
  IssuancePattern,
  RevokeCaCommand,
  RevokeCaResult,
  TenantCommand,
  UploadCaCertificateCommand,
  UploadCaCertificateResult,
} from '@ca/contracts';
import { AddIssuingCaHandler } from './add-issuing-ca.handler';
import { CaQueries } from './ca-queries';
import { ExternalRootHandler } from './external-root.handler';
import { InitializeCaHandler } from './initialize-ca.handler';
import { RenewRootHandler } from './renew-root.handler';
import { RevokeCaHandler } from './revoke-ca.handler';
import { RevokeCrossCertificateHandler } from './revoke-cross-certificate.handler';
import { ResponderPublication } from '../publication/responder-publication';

/** The request/reply surface of the certificate-authority aggregate. */
@Controller()
export class CertificateAuthorityController {
  constructor(
    private readonly initializeCa: InitializeCaHandler,
    private readonly queries: CaQueries,
    private readonly revokeCa: RevokeCaHandler,
    private readonly addIssuingCa: AddIssuingCaHandler,
    private readonly externalRoot: ExternalRootHandler,
    private readonly renewRootHandler: RenewRootHandler,
    private readonly revokeCross: RevokeCrossCertificateHandler,
    private readonly publication: ResponderPublication,
  ) {}

  @MessagePattern(IssuancePattern.InitializeCa)
  initialize(@Payload() command: InitializeCaCommand): Promise<InitializeCaResult> {
    return this.publication.aroundCaChange(command?.tenantId, () => this.initializeCa.execute(command));
  }

  @MessagePattern(IssuancePattern.InitializeCaV2)
  initializeV2(
    @Payload() command: InitializeCaV2Command,
  ): Promise<InitializeCaV2Result | InitializeExternalRootResult> {
    // docs/api.md#external-root: a CSR to have signed instead of a root of ours.
    if (command?.request?.hierarchy === CaHierarchy.ExternalRoot)
      return this.externalRoot.initialize(command);
    return this.publication.aroundCaChange(command?.tenantId, () => this.initializeCa.executeV2(command));
  }

  @MessagePattern(IssuancePattern.UploadCaCertificate)
  uploadCertificate(@Payload() command: UploadCaCertificateCommand): Promise<UploadCaCertificateResult> {
    return this.publication.aroundCaChange(command?.tenantId, () => this.externalRoot.upload(command));
  }

  @MessagePattern(IssuancePattern.ListCas)
  list(@Payload() query: TenantCommand): Promise<{ cas: CaSummary[] }> {
    return this.queries.list(query);
  }

  @MessagePattern(IssuancePattern.AddIssuingCa)
  async addIssuing(
    @Payload() command: AddIssuingCaCommand,
  ): Promise<AddIssuingCaResult | AddPendingIssuingCaResult> {
    assertCommandFields(command, { tenantId: 'uuid', principal: 'principal' });
    // docs/api.md#add-an-issuing-ca: under a corporate root the new CA is a CSR for that root to sign.
    if (await this.externalRoot.rootHeldOutside(command.tenantId))
      return this.externalRoot.addPending(command);
    return this.publication.aroundCaChange(command.tenantId, () => this.addIssuingCa.execute(command));
  }

  @MessagePattern(IssuancePattern.RenewRoot)
  renewRoot(@Payload() command: RenewRootCommand): Promise<RenewRootResult> {
    return this.publication.aroundCaChange(command?.tenantId, () => this.renewRootHandler.execute(command));
  }

  @MessagePattern(IssuancePattern.RevokeCa)
  revoke(@Payload() command: RevokeCaCommand): Promise<RevokeCaResult> {
    return this.revokeCa.execute(command);
  }

  @MessagePattern(IssuancePattern.RevokeCrossCertificate)
  revokeCrossCertificate(@Payload() command: RevokeCaCommand): Promise<RevokeCaResult> {
    return this.revokeCross.execute(command);
  }
}
