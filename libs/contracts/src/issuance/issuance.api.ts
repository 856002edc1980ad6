import {
  InventoryPage,
  InventorySummary,
  InventorySummaryQuery,
  RevocationJobQuery,
  RevocationJobView,
  RevokeMatchingCommand,
  RevokeMatchingResult,
  SearchCertificatesQuery,
  ExportCertificatesQuery,
  JobRevocations,
  JobRevocationsQuery,
  InventoryChunk,
} from './certificate-inventory';
import { TenantCommand } from '../common/tenant-command';
import {
  CertificateDetail,
  CertificateQuery,
  CertificateSummary,
  ExpiringCertificateSummary,
  ExpiringCertificatesQuery,
  ListCertificatesQuery,
} from './certificate-views';
import { ExpiryReport, ExpiryReportQuery } from './expiry-report';
import {
  CaSummary,
  InitializeCaCommand,
  InitializeCaResult,
  InitializeCaV2Command,
  InitializeCaV2Result,
} from './initialize-ca.dto';
import { IssueCertificateCommand, IssuedCertificate } from './issue-certificate.dto';
import { IssueCertificateV2Command } from './issue-certificate-v2.dto';
import { IssuancePattern } from './issuance.patterns';
import { GetIssuancePolicyQuery, IssuancePolicy, SetIssuancePolicyCommand } from './issuance-policy.dto';
import { RenewCertificateCommand } from './renew-certificate.dto';
import { RevokeCertificateCommand, RevokeCertificateResult } from './revoke-certificate.dto';
import { ReleaseHoldCommand, ReleaseHoldResult } from './release-hold.dto';
import { RevokeCaCommand, RevokeCaResult } from './revoke-ca.dto';
import { AddIssuingCaCommand, AddIssuingCaResult, AddPendingIssuingCaResult } from './add-issuing-ca.dto';
import {
  InitializeExternalRootResult,
  UploadCaCertificateCommand,
  UploadCaCertificateResult,
} from './external-root.dto';
import { RenewRootCommand, RenewRootResult } from './renew-root.dto';
import {
  RenewalInfo,
  RenewalInfoQuery,
  ReplaceLeavesCommand,
  ReplaceLeavesResult,
  ReplacementProgress,
  ReplacementQuery,
} from './replacement.dto';
import { IssueOcspSignerCommand, IssueOcspSignerResult, SignCrlCommand, SignCrlResult } from './signing.dto';
import { CrlRevocationsQuery, CrlRevocationsResult } from './crl-revocations.dto';

/** Request and reply type of every pattern the issuance context answers (for a typed RpcClient). */
export type IssuanceApi = {
  [IssuancePattern.InitializeCa]: [InitializeCaCommand, InitializeCaResult];
  [IssuancePattern.InitializeCaV2]: [
    InitializeCaV2Command,
    InitializeCaV2Result | InitializeExternalRootResult,
  ];
  [IssuancePattern.ListCas]: [TenantCommand, { cas: CaSummary[] }];
  [IssuancePattern.RevokeCa]: [RevokeCaCommand, RevokeCaResult];
  [IssuancePattern.RevokeCrossCertificate]: [RevokeCaCommand, RevokeCaResult];
  [IssuancePattern.AddIssuingCa]: [AddIssuingCaCommand, AddIssuingCaResult | AddPendingIssuingCaResult];
  [IssuancePattern.UploadCaCertificate]: [UploadCaCertificateCommand, UploadCaCertificateResult];
  [IssuancePattern.RenewRoot]: [RenewRootCommand, RenewRootResult];
  [IssuancePattern.ReplaceLeaves]: [ReplaceLeavesCommand, ReplaceLeavesResult];
  [IssuancePattern.GetReplacement]: [ReplacementQuery, ReplacementProgress];
  [IssuancePattern.GetRenewalInfo]: [RenewalInfoQuery, RenewalInfo];
  [IssuancePattern.IssueCertificate]: [IssueCertificateCommand, IssuedCertificate];
  [IssuancePattern.RenewCertificate]: [RenewCertificateCommand, IssuedCertificate];
  [IssuancePattern.IssueCertificateV2]: [IssueCertificateV2Command, IssuedCertificate];
  [IssuancePattern.IssueAcmeCertificate]: [IssueCertificateV2Command, IssuedCertificate];
  [IssuancePattern.RenewCertificateV2]: [RenewCertificateCommand, IssuedCertificate];
  [IssuancePattern.RevokeCertificate]: [RevokeCertificateCommand, RevokeCertificateResult];
  [IssuancePattern.ReleaseCertificateHold]: [ReleaseHoldCommand, ReleaseHoldResult];
  [IssuancePattern.GetCertificate]: [CertificateQuery, CertificateDetail];
  [IssuancePattern.ListCertificates]: [ListCertificatesQuery, { certificates: CertificateSummary[] }];
  [IssuancePattern.ListExpiringCertificates]: [
    ExpiringCertificatesQuery,
    { certificates: ExpiringCertificateSummary[] },
  ];
  [IssuancePattern.SearchCertificates]: [SearchCertificatesQuery, InventoryPage];
  [IssuancePattern.ExportCertificates]: [ExportCertificatesQuery, InventoryChunk];
  [IssuancePattern.SummarizeCertificates]: [InventorySummaryQuery, InventorySummary];
  [IssuancePattern.RevokeMatching]: [RevokeMatchingCommand, RevokeMatchingResult];
  [IssuancePattern.GetRevocationJob]: [RevocationJobQuery, RevocationJobView];
  [IssuancePattern.GetJobRevocations]: [JobRevocationsQuery, JobRevocations];
  [IssuancePattern.ExpiryReport]: [ExpiryReportQuery, ExpiryReport];
  [IssuancePattern.SignCrl]: [SignCrlCommand, SignCrlResult];
  [IssuancePattern.CrlRevocations]: [CrlRevocationsQuery, CrlRevocationsResult];
  [IssuancePattern.IssueOcspSigner]: [IssueOcspSignerCommand, IssueOcspSignerResult];
  [IssuancePattern.SetIssuancePolicy]: [SetIssuancePolicyCommand, IssuancePolicy];
  [IssuancePattern.GetIssuancePolicy]: [GetIssuancePolicyQuery, IssuancePolicy];
};
