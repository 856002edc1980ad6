import { IsIn, IsInt, IsOptional, Max, Min } from 'class-validator';
import { TenantCommand } from '../common/tenant-command';
import { KEY_ALGORITHMS, KeyAlgorithm } from './key-algorithm';

/** As for initialize (docs/api.md#initialize-the-ca): a root lives 1 to 30 years. */
export const MAX_ROOT_VALIDITY_YEARS = 30;

/**
 * docs/api.md#renew-the-root: body of POST /v2/ca/root/renew. Every field is optional: the key
 * algorithm defaults to the current root's, the lifetime to the current root's (whole years).
 */
export class RenewRootRequest {
  @IsOptional()
  @IsIn(KEY_ALGORITHMS)
  keyAlgorithm?: KeyAlgorithm;

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_ROOT_VALIDITY_YEARS)
  validityYears?: number;
}

export interface RenewRootCommand extends TenantCommand {
  request: RenewRootRequest;
}

/** docs/api.md#renew-the-root response. */
export interface RenewRootResult {
  /** The new root. */
  caId: string;
  certificatePem: string;
  expiresAt: string;
  keyAlgorithm: KeyAlgorithm;
  /**
   * The new root's subject and key signed by the previous root: relying parties that trust only
   * the previous root reach the new one through it (docs/api.md#chains).
   */
  crossCertificatePem: string;
  /** The root replaced, now `retired`: it keeps its CRL and OCSP for the CAs it signed. */
  retiredRootCaId: string;
  /** The new issuing CA under the new root, which signs the tenant's leaves from now on. */
  issuingCa: {
    caId: string;
    certificatePem: string;
    /** The new issuing CA and the cross certificate (docs/api.md#chains). */
    chainPem: string;
    expiresAt: string;
  };
  /** The issuing CA that signed leaves until now, now retired; absent when the root signed them. */
  retiredCaId?: string;
}
