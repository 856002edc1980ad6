import {
  GetIssuancePolicyQuery,
  IssuancePolicy,
  IssuancePolicyRequest,
  SetIssuancePolicyCommand,
  assertCommandFields,
} from '@ca/contracts';
import { normalizedPolicySuffixes, normalizedPolicyUsages, validateDto } from '@ca/domain';
import { DataSource } from 'typeorm';
import { AddIssuingCaHandler } from '../certificate-authority/add-issuing-ca.handler';
import { KEY_ALGORITHM } from '../certificate-authority/ca-queries';
import { carriesPolicy } from '../certificate-authority/issuing-ca-profile';
import { EXTERNAL_KEY_CUSTODY } from '../certificate-authority/pending-ca.entity';
import { IssuancePolicies, TenantPolicy } from './issuance-policies';

/** The issuing CA that signs leaves now, when a policy change may replace it. */
interface CurrentIssuingCa {
  certificate_der: Buffer;
  key_algorithm: string;
}

/**
 * docs/api.md#issuance-policy: set, remove and read a tenant's issuance policy. A change never
 * edits a CA: when the tenant's active issuing CA does not carry the EKU or the name constraints
 * of the new policy, a new issuing CA that does is made in the same request (the rollover of
 * docs/api.md#add-an-issuing-ca), and the policy commits with it.
 */
export class IssuancePolicyHandler {
  constructor(
    private readonly policies: IssuancePolicies,
    private readonly dataSource: DataSource,
    private readonly addIssuingCa: AddIssuingCaHandler,
  ) {}

  /** A list replaces the policy (validated again here: issuance trusts no caller); null removes it. */
  async set(command: SetIssuancePolicyCommand): Promise<IssuancePolicy> {
    assertCommandFields(command, { tenantId: 'uuid', principal: 'principal', requestId: 'optionalText' });
    const { tenantId, principal } = command;
    let policy: TenantPolicy | null = null;
    if (command.allowedDnsSuffixes !== null) {
      const request = await validateDto(IssuancePolicyRequest, {
        allowedDnsSuffixes: command.allowedDnsSuffixes,
        ...(command.allowedUsages != null ? { allowedUsages: command.allowedUsages } : {}),
      });
      policy = {
        allowedDnsSuffixes: normalizedPolicySuffixes(request.allowedDnsSuffixes),
        allowedUsages: normalizedPolicyUsages(request.allowedUsages),
      };
    }
    const answer = policyAnswer(policy);
    const current = await this.issuingCaToReplace(tenantId, policy);
    if (!current) {
      await (policy === null
        ? this.policies.remove(tenantId)
        : this.policies.replace(tenantId, policy, principal));
      return answer;
    }
    // Same key algorithm as the CA it replaces, valid until the root's end (the add defaults).
    const added = await this.addIssuingCa.execute(
      {
        tenantId,
        principal,
        requestId: command.requestId,
        request: { keyAlgorithm: KEY_ALGORITHM[current.key_algorithm] },
      },
      {
        policy,
        write: (manager) =>
          policy === null
            ? this.policies.remove(tenantId, manager)
            : this.policies.replace(tenantId, policy, principal, manager),
      },
    );
    return {
      ...answer,
      issuingCaId: added.caId,
      ...(added.retiredCaId ? { retiredIssuingCaId: added.retiredCaId } : {}),
    };
  }

  async get(query: GetIssuancePolicyQuery): Promise<IssuancePolicy> {
    assertCommandFields(query, { tenantId: 'uuid' });
    return policyAnswer(await this.policies.policyOf(query.tenantId));
  }

  /**
   * The tenant's active issuing CA when it lacks the new policy's EKU or name constraints. None for a tenant
   * whose root signs leaves (v1, RootOnly: the policy binds its leaves only), nor for an issuing
   * CA that is revoked or expired: replacing it is the administrator's call (POST /v2/ca/issuing,
   * which then takes the policy's constraints). None either under a corporate root
   * (docs/api.md#external-root): we hold no key to sign a new one, so the policy binds leaves only.
   */
  private async issuingCaToReplace(
    tenantId: string,
    policy: TenantPolicy | null,
  ): Promise<CurrentIssuingCa | undefined> {
    const rows: CurrentIssuingCa[] = await this.dataSource.query(
      `SELECT certificate_der, key_algorithm FROM issuance.certificate_authorities
        WHERE tenant_id = $1 AND role = 'issuing' AND retired_at IS NULL
          AND revoked_at IS NULL AND not_after > now()
          AND NOT EXISTS (SELECT 1 FROM issuance.certificate_authorities root
                           WHERE root.tenant_id = $1 AND root.role = 'root' AND root.key_custody = $2)`,
      [tenantId, EXTERNAL_KEY_CUSTODY],
    );
    const current = rows[0];
    if (!current || carriesPolicy(new Uint8Array(current.certificate_der), policy)) return undefined;
    return current;
  }
}

/** docs/api.md#issuance-policy: both fields null when the tenant has no policy. */
function policyAnswer(policy: TenantPolicy | null): IssuancePolicy {
  return policy ?? { allowedDnsSuffixes: null, allowedUsages: null };
}
