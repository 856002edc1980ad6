import { IsString, MaxLength, MinLength } from 'class-validator';
import { TenantCommand } from '../common/tenant-command';
import { CaHierarchy, KeyAlgorithm } from './key-algorithm';

/** A few CA certificates in PEM; far more than any corporate chain needs. */
export const MAX_UPLOADED_PEM_LENGTH = 64 * 1024;

/** docs/api.md#external-root: the issuing CA made by `ExternalRoot`, waiting for its certificate. */
export interface PendingIssuingCa {
  caId: string;
  /** PKCS#10 request of the CA's key (RFC 2986), to be signed by the corporate root. */
  csrPem: string;
  state: 'pending';
}

/** docs/api.md#initialize-the-ca-v2 response for `ExternalRoot`: no root of ours, a pending issuing CA. */
export interface InitializeExternalRootResult {
  hierarchy: typeof CaHierarchy.ExternalRoot;
  keyAlgorithm: KeyAlgorithm;
  issuingCa: PendingIssuingCa;
}

/** docs/api.md#external-root: body of PUT /v2/ca/{caId}/certificate. */
export class UploadCaCertificateRequest {
  @IsString()
  @MinLength(1)
  @MaxLength(MAX_UPLOADED_PEM_LENGTH)
  certificatePem!: string;

  @IsString()
  @MinLength(1)
  @MaxLength(MAX_UPLOADED_PEM_LENGTH)
  chainPem!: string;
}

export interface UploadCaCertificateCommand extends TenantCommand {
  caId: string;
  request: UploadCaCertificateRequest;
}

/** docs/api.md#external-root: the issuing CA, now active. */
export interface UploadCaCertificateResult {
  caId: string;
  state: 'active';
  certificatePem: string;
  /** What leaves carry as chainPem: this CA and the intermediates, without the root (docs/api.md#chains). */
  chainPem: string;
  /** The corporate root, now the tenant's trust anchor (`ca.pem`). */
  rootCertificatePem: string;
  expiresAt: string;
  keyAlgorithm: KeyAlgorithm;
  /** A later issuing CA (docs/api.md#add-an-issuing-ca): the one it replaced, now retired. */
  retiredCaId?: string;
}
