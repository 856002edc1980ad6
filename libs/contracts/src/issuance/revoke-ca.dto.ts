import { IsIn } from 'class-validator';
import { AuditReasonField } from './request-fields';
import { TenantCommand } from '../common/tenant-command';
import { RevocationReasonCode } from './certificate-status';

/** RFC 5280 5.3.1 reasons that make sense for an issuing CA certificate. */
export const CA_REVOCATION_REASON_CODES: readonly RevocationReasonCode[] = [
  'Unspecified',
  'KeyCompromise',
  'CaCompromise',
  'AffiliationChanged',
  'Superseded',
  'CessationOfOperation',
];

/** docs/api.md#revoke-an-issuing-ca: body of POST /v2/ca/{caId}/revoke. */
export class RevokeCaRequest {
  @AuditReasonField()
  reason!: string;

  @IsIn(CA_REVOCATION_REASON_CODES, {
    message: `reasonCode must be one of: ${CA_REVOCATION_REASON_CODES.join(', ')}`,
  })
  reasonCode!: RevocationReasonCode;
}

export interface RevokeCaCommand extends TenantCommand {
  caId: string;
  request: RevokeCaRequest;
}

export interface RevokeCaResult {
  caId: string;
  serialNumber: string;
  revokedAt: string;
  /** As for a certificate: whether OCSP already answers `revoked` for the CA (else once the responder is back). */
  published: boolean;
}
