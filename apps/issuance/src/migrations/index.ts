import { AddIssuingCaRollover1766800000000 } from './1766800000000-add-issuing-ca-rollover';
import { AddExternalRoots1767100000000 } from './1767100000000-add-external-roots';
import { RootRenewal1767300000000 } from './1767300000000-root-renewal';
import { AddAllowedUsagesToIssuancePolicies1767500000000 } from './1767500000000-add-allowed-usages-to-issuance-policies';
import { CreateBlockedKeys1767600000000 } from './1767600000000-create-blocked-keys';
import { AddCrossCertificateRevocation1767700000000 } from './1767700000000-add-cross-certificate-revocation';
import { AddSourceToCertificates1767800000000 } from './1767800000000-add-source-to-certificates';
import { IndexCertificateInventory1767800000001 } from './1767800000001-index-certificate-inventory';
import { CreateRevocationJobs1767800000002 } from './1767800000002-create-revocation-jobs';
import { IndexCertificateSearch1767800000003 } from './1767800000003-index-certificate-search';
import { CreateCertificateAuthorities1763769600000 } from './1763769600000-create-certificate-authorities';
import { CreateCertificates1763769700000 } from './1763769700000-create-certificates';
import { AddV2ProfileToCertificates1763769900000 } from './1763769900000-add-v2-profile-to-certificates';
import { AddTraceContextToOutbox1764800000000 } from './1764800000000-add-trace-context-to-outbox';
import { CreateCustomExtensionArcs1764900000000 } from './1764900000000-create-custom-extension-arcs';
import { CreateHoldReleases1766000000000 } from './1766000000000-create-hold-releases';
import { IssuanceTrustsNoCaller1766200000000 } from './1766200000000-issuance-trusts-no-caller';
import { AddClaimsAndRetentionToOutbox1766300000000 } from './1766300000000-add-claims-and-retention-to-outbox';
import { CreateIssuancePolicies1766400000000 } from './1766400000000-create-issuance-policies';
import { CrlListedRevocations1767710000000 } from './1767710000000-crl-listed-revocations';
import { CreateOcspSignerCertifications1767720000000 } from './1767720000000-create-ocsp-signer-certifications';
import { AddCaRoles1766410000000 } from './1766410000000-add-ca-roles';
import { AddKeyFromCsrToCertificates1766500000000 } from './1766500000000-add-key-from-csr-to-certificates';
import { CreateActiveCertificateCounts1766600000000 } from './1766600000000-create-active-certificate-counts';

import { AddStatusSequenceToCertificates1767840000000 } from './1767840000000-add-status-sequence-to-certificates';
import { AddReplacementToCertificates1767900000000 } from './1767900000000-add-replacement-to-certificates';
import { OneAcmeReplacementPerCertificate1767950000000 } from './1767950000000-one-acme-replacement-per-certificate';
import { CreateReplaceLeavesRequests1767950000001 } from './1767950000001-create-replace-leaves-requests';
import { CreateInventoryCounts1767960000000 } from './1767960000000-create-inventory-counts';
import { AddFailureToRevocationJobs1767960000001 } from './1767960000001-add-failure-to-revocation-jobs';
import { IndexCertificateSearchByTenant1767970000000 } from './1767970000000-index-certificate-search-by-tenant';
import { CertificateCountersPerStatement1767980000000 } from './1767980000000-certificate-counters-per-statement';

/** In order; each runs once per database (TypeORM's issuance.migrations table). */ import { AddRevocationToCas1766700000000 } from './1766700000000-add-revocation-to-cas';

export const ISSUANCE_MIGRATIONS = [
  CreateCertificateAuthorities1763769600000,
  CreateCertificates1763769700000,
  AddV2ProfileToCertificates1763769900000,
  AddTraceContextToOutbox1764800000000,
  CreateCustomExtensionArcs1764900000000,
  CreateHoldReleases1766000000000,
  IssuanceTrustsNoCaller1766200000000,
  AddClaimsAndRetentionToOutbox1766300000000,
  CreateIssuancePolicies1766400000000,
  AddCaRoles1766410000000,
  AddKeyFromCsrToCertificates1766500000000,
  CreateActiveCertificateCounts1766600000000,
  AddRevocationToCas1766700000000,
  AddIssuingCaRollover1766800000000,
  AddExternalRoots1767100000000,
  RootRenewal1767300000000,
  AddAllowedUsagesToIssuancePolicies1767500000000,
  CreateBlockedKeys1767600000000,
  AddCrossCertificateRevocation1767700000000,
  CrlListedRevocations1767710000000,
  CreateOcspSignerCertifications1767720000000,
  AddSourceToCertificates1767800000000,
  IndexCertificateInventory1767800000001,
  CreateRevocationJobs1767800000002,
  IndexCertificateSearch1767800000003,
  AddStatusSequenceToCertificates1767840000000,
  AddReplacementToCertificates1767900000000,
  OneAcmeReplacementPerCertificate1767950000000,
  CreateReplaceLeavesRequests1767950000001,
  CreateInventoryCounts1767960000000,
  AddFailureToRevocationJobs1767960000001,
  IndexCertificateSearchByTenant1767970000000,
  CertificateCountersPerStatement1767980000000,
];
