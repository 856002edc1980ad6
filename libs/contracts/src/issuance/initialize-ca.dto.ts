import { IsIn, IsOptional } from 'class-validator';
import { TenantCommand } from '../common/tenant-command';
import { CaHierarchy, CaRole, KEY_ALGORITHMS, KeyAlgorithm } from './key-algorithm';
import { CountryField, SubjectNameField, ValidityField } from './request-fields';

/** docs/api.md#initialize-the-ca: body of POST /v1/ca/initialize. */
export class InitializeCaRequest {
  @SubjectNameField()
  commonName!: string;

  @SubjectNameField()
  organization!: string;

  @CountryField()
  country!: string;

  @ValidityField(30)
  validityYears!: number;
}

/** docs/api.md#initialize-the-ca-v2: body of POST /v2/ca/initialize, the v1 body plus the CA choices. */
export class InitializeCaV2Request extends InitializeCaRequest {
  @IsOptional()
  @IsIn(Object.values(CaHierarchy))
  hierarchy?: CaHierarchy;

  @IsOptional()
  @IsIn(KEY_ALGORITHMS)
  keyAlgorithm?: KeyAlgorithm;
}

export interface InitializeCaCommand extends TenantCommand {
  request: InitializeCaRequest;
}

export interface InitializeCaV2Command extends TenantCommand {
  request: InitializeCaV2Request;
}

/** docs/api.md#initialize-the-ca response. */
export interface InitializeCaResult {
  caId: string;
  certificatePem: string;
  expiresAt: string;
}

/** docs/api.md#initialize-the-ca-v2 response: the v1 fields (the root) plus the issuing CA, if any. */
export interface InitializeCaV2Result extends InitializeCaResult {
  hierarchy: CaHierarchy;
  keyAlgorithm: KeyAlgorithm;
  /** Absent for RootOnly. */
  issuingCa?: { caId: string; certificatePem: string; expiresAt: string };
}

export type CaState = 'active' | 'retired' | 'expired' | 'revoked' | 'pending';

/** docs/api.md#list-the-cas: one of a tenant's CAs. */
export interface CaSummary {
  caId: string;
  role: CaRole;
  /** Absent while `pending` (no certificate yet), as are notBefore, notAfter and certificatePem. */
  serialNumber?: string;
  subject: string;
  notBefore?: string;
  notAfter?: string;
  keyAlgorithm: KeyAlgorithm;
  /**
   * `active`: the root, or the issuing CA that signs leaves now; `retired`: an issuing CA a newer
   * one replaced, still answering CRL and OCSP for its certificates; `expired` once notAfter has
   * passed; `revoked`; `pending`: an issuing CA waiting for its certificate from the corporate
   * root (docs/api.md#external-root).
   */
  state: CaState;
  certificatePem?: string;
  /** The CSR to have signed, while `pending`. */
  csrPem?: string;
  /** Set on a root held outside (docs/api.md#external-root): no key of it is here. */
  external?: true;
  /**
   * On a root made by renewal (docs/api.md#renew-the-root): the cross certificate, this root's
   * subject and key signed by the root it replaced.
   */
  crossCertificatePem?: string;
}
