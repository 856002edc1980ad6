/** A tenant's administrative state as the gateway records it (operator commands, first use). */
export const TenantStatus = { Active: 'active', Suspended: 'suspended' } as const;
export type TenantStatus = (typeof TenantStatus)[keyof typeof TenantStatus];

/**
 * Payload of `tenant.updated`, recorded by the gateway whenever a tenant is created on first use,
 * suspended, resumed or given a plan limit. Issuance keeps the newest per tenant and enforces it
 * itself, so a command sent straight to issuance cannot skip suspension or the plan limit.
 */
export interface TenantUpdatedPayload {
  tenantId: string;
  status: TenantStatus;
  /** The effective plan limit (the tenant's own, or the gateway's DEFAULT_CERTIFICATE_LIMIT). */
  certificateLimit: number;
  /** When the gateway changed the row (ISO 8601): a projection ignores anything older than it holds. */
  updatedAt: string;
}
