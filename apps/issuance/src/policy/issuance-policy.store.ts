import { PolicyUsage } from '@ca/contracts';
import { normalizedPolicyUsages } from '@ca/domain';
import { EntityManager } from 'typeorm';
import { prepared } from '@ca/persistence';

/** A tenant's issuance policy as stored (docs/api.md#issuance-policy), already normalized. */
export interface TenantPolicy {
  allowedDnsSuffixes: string[];
  allowedUsages: PolicyUsage[];
}

/** `issuance.issuance_policies`: at most one policy per tenant. */
export abstract class IssuancePolicyStore {
  /** The tenant's policy, or null when it has none. A row from before `allowed_usages`: both usages. */
  abstract policyOf(tenantId: string): Promise<TenantPolicy | null>;
  /** Replaces the tenant's policy (already validated and normalized). */
  abstract replace(tenantId: string, policy: TenantPolicy, principal: string): Promise<void>;
  abstract remove(tenantId: string): Promise<void>;
}

export class SqlIssuancePolicyStore extends IssuancePolicyStore {
  constructor(private readonly db: EntityManager) {
    super();
  }

  async policyOf(tenantId: string): Promise<TenantPolicy | null> {
    const rows: { allowed_dns_suffixes: string[]; allowed_usages: PolicyUsage[] | null }[] =
      await this.db.query(
        // Prepared: ACME asks it twice per order (prepared-statements.ts).
        prepared(
          'SELECT allowed_dns_suffixes, allowed_usages FROM issuance.issuance_policies WHERE tenant_id = $1',
        ),
        [tenantId],
      );
    if (rows.length === 0) return null;
    return {
      allowedDnsSuffixes: rows[0].allowed_dns_suffixes,
      allowedUsages: normalizedPolicyUsages(rows[0].allowed_usages),
    };
  }

  async replace(tenantId: string, policy: TenantPolicy, principal: string): Promise<void> {
    await this.db.query(
      `INSERT INTO issuance.issuance_policies
         (tenant_id, allowed_dns_suffixes, allowed_usages, updated_at, updated_by)
       VALUES ($1, $2::text[], $3::text[], now(), $4)
       ON CONFLICT (tenant_id) DO UPDATE
         SET allowed_dns_suffixes = EXCLUDED.allowed_dns_suffixes,
             allowed_usages = EXCLUDED.allowed_usages,
             updated_at = EXCLUDED.updated_at, updated_by = EXCLUDED.updated_by`,
      [tenantId, policy.allowedDnsSuffixes, policy.allowedUsages, principal],
    );
  }

  async remove(tenantId: string): Promise<void> {
    await this.db.query('DELETE FROM issuance.issuance_policies WHERE tenant_id = $1', [tenantId]);
  }
}
