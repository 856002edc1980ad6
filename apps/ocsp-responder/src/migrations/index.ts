import { CreateCaCertificates1763769600000 } from './1763769600000-create-ca-certificates';
import { CreateStatusCrlsSigners1763769800000 } from './1763769800000-create-status-crls-signers';
import { StatusChangedAt1763784000000 } from './1763784000000-status-changed-at';
import { PendingCrls1763785000000 } from './1763785000000-pending-crls';
import { PendingCrlsPerNumber1764201600000 } from './1764201600000-pending-crls-per-number';
import { AddIssuingCaCertificates1766410000000 } from './1766410000000-add-issuing-ca-certificates';
import { RootCrlsAndIssuingCaStatus1766700000000 } from './1766700000000-root-crls-and-issuing-ca-status';
import { AddedIssuingCas1766900000000 } from './1766900000000-added-issuing-cas';
import { CertificateStatusCa1767000000000 } from './1767000000000-certificate-status-ca';
import { ExternalRoots1767100000001 } from './1767100000001-external-roots';
import { RenewedRoots1767300000000 } from './1767300000000-renewed-roots';
import { StatusSequence1767640000000 } from './1767640000000-status-sequence';
import { RequestedSigners1767620000000 } from './1767620000000-requested-signers';

export const OCSP_MIGRATIONS = [
  CreateCaCertificates1763769600000,
  CreateStatusCrlsSigners1763769800000,
  StatusChangedAt1763784000000,
  PendingCrls1763785000000,
  PendingCrlsPerNumber1764201600000,
  AddIssuingCaCertificates1766410000000,
  RootCrlsAndIssuingCaStatus1766700000000,
  AddedIssuingCas1766900000000,
  CertificateStatusCa1767000000000,
  ExternalRoots1767100000001,
  RenewedRoots1767300000000,
  RequestedSigners1767620000000,
  StatusSequence1767640000000,
];
