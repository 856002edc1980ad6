/** Every command carries the tenant of the token and the principal for the audit trail. */
export interface TenantCommand {
  tenantId: string;
  principal: string;
  requestId?: string;
}
