import { IsNotEmpty, IsOptional, IsString, Length } from 'class-validator';
import { TenantCommand } from '../common/tenant-command';

/** Body of POST /v2/certificates/{id}/release-hold; may be empty. */
export class ReleaseHoldRequest {
  // The same text rules as the revocation's reason (RevokeCertificateRequest.reason).
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @Length(1, 255)
  reason?: string;
}

export interface ReleaseHoldCommand extends TenantCommand {
  certificateId: string;
  request: ReleaseHoldRequest;
}

export interface ReleaseHoldResult {
  certificateId: string;
  /** When the hold ended; the certificate is Active again (or Expired, past its notAfter). */
  releasedAt: string;
  /** The revocation date of the hold that was released. */
  heldSince: string;
}
