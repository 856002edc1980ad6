import { CreateCrlIssuers1763769600000 } from './1763769600000-create-crl-issuers';
import { CreateRevokedCertificatesAndCrls1763769800000 } from './1763769800000-create-revoked-certificates-and-crls';
import { AddTraceContextToOutbox1764800000000 } from './1764800000000-add-trace-context-to-outbox';
import { AddRecordedAtToRevokedCertificates1765000000000 } from './1765000000000-add-recorded-at-to-revoked-certificates';
import { AddEntriesRemovedToCrlIssuers1766000000000 } from './1766000000000-add-entries-removed-to-crl-issuers';
import { AddClaimsAndRetentionToOutbox1766300000000 } from './1766300000000-add-claims-and-retention-to-outbox';
import { AddBuildLeaseToCrlIssuers1766300100000 } from './1766300100000-add-build-lease-to-crl-issuers';
import { CreateRootCrlIssuers1766700000000 } from './1766700000000-create-root-crl-issuers';
import { CrlIssuersPerCa1766900000000 } from './1766900000000-crl-issuers-per-ca';

export const REVOCATION_MIGRATIONS = [
  CreateCrlIssuers1763769600000,
  CreateRevokedCertificatesAndCrls1763769800000,
  AddTraceContextToOutbox1764800000000,
  AddRecordedAtToRevokedCertificates1765000000000,
  AddEntriesRemovedToCrlIssuers1766000000000,
  AddClaimsAndRetentionToOutbox1766300000000,
  AddBuildLeaseToCrlIssuers1766300100000,
  CreateRootCrlIssuers1766700000000,
  CrlIssuersPerCa1766900000000,
];
