import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { IssuanceApi, IssuancePattern } from '@ca/contracts';
import { certificateMetrics } from '@ca/observability';
import { CertificateInventory } from './certificate-inventory';
import { CertificateQueries } from './certificate-queries';
import { IssueCertificateHandler } from './issue-certificate.handler';
import { RenewCertificateHandler } from './renew-certificate.handler';
import { RevokeCertificateHandler } from './revoke-certificate.handler';
import { ReleaseHoldHandler } from './release-hold.handler';
import { RevokeMatchingHandler } from './revoke-matching.handler';

type Request<P extends keyof IssuanceApi> = IssuanceApi[P][0];
type Reply<P extends keyof IssuanceApi> = Promise<IssuanceApi[P][1]>;

/** The request/reply surface of the certificate aggregate. */
@Controller()
export class CertificatesController {
  constructor(
    private readonly issueHandler: IssueCertificateHandler,
    private readonly renewHandler: RenewCertificateHandler,
    private readonly revokeHandler: RevokeCertificateHandler,
    private readonly releaseHoldHandler: ReleaseHoldHandler,
    private readonly queries: CertificateQueries,
    private readonly inventory: CertificateInventory,
    private readonly revokeMatchingHandler: RevokeMatchingHandler,
  ) {}

  @MessagePattern(IssuancePattern.IssueCertificate)
  issue(
    @Payload() command: Request<typeof IssuancePattern.IssueCertificate>,
  ): Reply<typeof IssuancePattern.IssueCertificate> {
    return this.issueHandler.execute(command).then(counted(() => certificateMetrics.issued('issue')));
  }

  @MessagePattern(IssuancePattern.RenewCertificate)
  renew(
    @Payload() command: Request<typeof IssuancePattern.RenewCertificate>,
  ): Reply<typeof IssuancePattern.RenewCertificate> {
    return this.renewHandler.execute(command).then(counted(() => certificateMetrics.issued('renew')));
  }

  @MessagePattern(IssuancePattern.IssueCertificateV2)
  issueV2(
    @Payload() command: Request<typeof IssuancePattern.IssueCertificateV2>,
  ): Reply<typeof IssuancePattern.IssueCertificateV2> {
    return this.issueHandler.executeV2(command).then(counted(() => certificateMetrics.issued('issue-v2')));
  }

  @MessagePattern(IssuancePattern.IssueAcmeCertificate)
  issueAcme(
    @Payload() command: Request<typeof IssuancePattern.IssueAcmeCertificate>,
  ): Reply<typeof IssuancePattern.IssueAcmeCertificate> {
    return this.issueHandler
      .executeV2(command, true)
      .then(counted(() => certificateMetrics.issued('issue-v2')));
  }

  @MessagePattern(IssuancePattern.RenewCertificateV2)
  renewV2(
    @Payload() command: Request<typeof IssuancePattern.RenewCertificateV2>,
  ): Reply<typeof IssuancePattern.RenewCertificateV2> {
    return this.renewHandler.executeV2(command).then(counted(() => certificateMetrics.issued('renew-v2')));
  }

  @MessagePattern(IssuancePattern.RevokeCertificate)
  revoke(
    @Payload() command: Request<typeof IssuancePattern.RevokeCertificate>,
  ): Reply<typeof IssuancePattern.RevokeCertificate> {
    return this.revokeHandler
      .execute(command)
      .then(counted(() => certificateMetrics.revoked(command.request?.reasonCode)));
  }

  @MessagePattern(IssuancePattern.ReleaseCertificateHold)
  releaseHold(
    @Payload() command: Request<typeof IssuancePattern.ReleaseCertificateHold>,
  ): Reply<typeof IssuancePattern.ReleaseCertificateHold> {
    return this.releaseHoldHandler.execute(command);
  }

  @MessagePattern(IssuancePattern.GetCertificate)
  get(
    @Payload() query: Request<typeof IssuancePattern.GetCertificate>,
  ): Reply<typeof IssuancePattern.GetCertificate> {
    return this.queries.get(query);
  }

  @MessagePattern(IssuancePattern.ListCertificates)
  list(
    @Payload() query: Request<typeof IssuancePattern.ListCertificates>,
  ): Reply<typeof IssuancePattern.ListCertificates> {
    return this.queries.list(query);
  }

  @MessagePattern(IssuancePattern.SearchCertificates)
  search(
    @Payload() query: Request<typeof IssuancePattern.SearchCertificates>,
  ): Reply<typeof IssuancePattern.SearchCertificates> {
    return this.inventory.search(query);
  }

  @MessagePattern(IssuancePattern.GetJobRevocations)
  jobRevocations(
    @Payload() query: Request<typeof IssuancePattern.GetJobRevocations>,
  ): Reply<typeof IssuancePattern.GetJobRevocations> {
    return this.revokeMatchingHandler.revocations(query);
  }

  @MessagePattern(IssuancePattern.ExportCertificates)
  exportChunk(
    @Payload() query: Request<typeof IssuancePattern.ExportCertificates>,
  ): Reply<typeof IssuancePattern.ExportCertificates> {
    return this.inventory.exportChunk(query);
  }

  @MessagePattern(IssuancePattern.SummarizeCertificates)
  summary(
    @Payload() query: Request<typeof IssuancePattern.SummarizeCertificates>,
  ): Reply<typeof IssuancePattern.SummarizeCertificates> {
    return this.inventory.summary(query);
  }

  @MessagePattern(IssuancePattern.RevokeMatching)
  revokeMatching(
    @Payload() command: Request<typeof IssuancePattern.RevokeMatching>,
  ): Reply<typeof IssuancePattern.RevokeMatching> {
    return this.revokeMatchingHandler.execute(command);
  }

  @MessagePattern(IssuancePattern.GetRevocationJob)
  job(
    @Payload() query: Request<typeof IssuancePattern.GetRevocationJob>,
  ): Reply<typeof IssuancePattern.GetRevocationJob> {
    return this.revokeMatchingHandler.job(query);
  }

  @MessagePattern(IssuancePattern.ListExpiringCertificates)
  expiring(
    @Payload() query: Request<typeof IssuancePattern.ListExpiringCertificates>,
  ): Reply<typeof IssuancePattern.ListExpiringCertificates> {
    return this.queries.expiring(query);
  }
}

/** Counts a success once its reply is ready (ca_certificates_issued_total / _revoked_total). */
function counted<T>(count: () => void): (value: T) => T {
  return (value) => {
    count();
    return value;
  };
}
