/** Every command carries the tenant of the token and the principal for the audit trail. */
export interface TenantCommand {
  tenantId: string;
  principal: string;
  requestId?: string;
}

/**
 * Commands that create a certificate (issue, renew) carry the tenant's plan limit, read by the
 * gateway from its tenants table: the most Active certificates the tenant may hold (CONTRACT
 * section 5). The issuance service enforces it atomically; absent, no limit is applied.
 */
export interface PlanLimited {
  certificateLimit?: number;
}
