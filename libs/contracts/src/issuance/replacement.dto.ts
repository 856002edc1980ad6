import { TenantCommand } from '../common/tenant-command';
import { AuditReasonField } from './request-fields';

/** docs/api.md#replace-now: body of POST /v2/ca/{caId}/replace-leaves. */
export class ReplaceLeavesRequest {
  @AuditReasonField()
  reason!: string;
}

export interface ReplaceLeavesCommand extends TenantCommand {
  caId: string;
  request: ReplaceLeavesRequest;
}

/** How many Active leaves of the CA were given a window that has already begun. */
/**
 * Payload of `ca.replace-leaves-requested`: the replace-now drill ran on an issuing CA
 * (docs/api.md#replace-now). The free-text reason stays in the audit log.
 */
export interface ReplaceLeavesRequestedPayload {
  tenantId: string;
  caId: string;
  /** Leaves whose renewal window this request moved into the past. */
  marked: number;
  requestedAt: string;
  requestedBy?: string;
}

export interface ReplaceLeavesResult {
  caId: string;
  marked: number;
  requestedAt: string;
}

export interface ReplacementQuery extends TenantCommand {
  caId: string;
}

/**
 * docs/api.md#replace-now: the leaves asked to be replaced; replaced once a successor (a
 * certificate naming it in ACME `replaces`, or its renewal) was issued; remaining: neither
 * replaced, revoked nor expired.
 */
export interface ReplacementProgress {
  total: number;
  replaced: number;
  remaining: number;
}

/** acme's look-up of a certificate by its ARI certID parts (RFC 9773 4.1). */
export interface RenewalInfoQuery {
  tenantId: string;
  authorityKeyIdentifierHex: string;
  serialNumberHex: string;
}

/** What acme needs to answer renewalInfo and to check `replaces` (RFC 9773 4.2, 5). */
export interface RenewalInfo {
  certificateId: string;
  suggestedWindow: { start: string; end: string };
  /** Who issued it (`acme:<accountId>` for ACME orders). */
  issuedBy: string | null;
  dnsNames: string[];
  /** The newest certificate issued as its replacement or renewal. */
  successorId?: string;
  revoked: boolean;
}
