import { IsIn, IsOptional } from 'class-validator';
import { AuditReasonField } from './request-fields';
import { TenantCommand } from '../common/tenant-command';
import { ACCEPTED_REVOCATION_REASON_CODES, RevocationReasonCode } from './certificate-status';

/** docs/api.md#revoke-a-certificate: body of POST /v1/certificates/{id}/revoke. */
export class RevokeCertificateRequest {
  @AuditReasonField()
  reason!: string;

  @IsOptional()
  @IsIn(ACCEPTED_REVOCATION_REASON_CODES, {
    message: `reasonCode must be one of: ${ACCEPTED_REVOCATION_REASON_CODES.join(', ')} (RemoveFromCrl appears only in delta CRLs, RFC 5280 5.3.1)`,
  })
  reasonCode?: RevocationReasonCode;
}

export interface RevokeCertificateCommand extends TenantCommand {
  certificateId: string;
  request: RevokeCertificateRequest;
}

/** docs/api.md#revoke-a-certificate response. */
export interface RevokeCertificateResult {
  certificateId: string;
  revokedAt: string;
  /**
   * Whether OCSP already answers `revoked` on every responder replica. False when the distribution
   * side could not confirm within 2 s: the revocation is recorded all the same and reaches OCSP and
   * the CRL once the responder is back.
   */
  published: boolean;
}
