import {
  GetIssuancePolicyQuery,
  IssuancePolicy,
  IssuancePolicyRequest,
  SetIssuancePolicyCommand,
  assertCommandFields,
} from '@ca/contracts';
import { normalizedPolicySuffixes, normalizedPolicyUsages, validateDto } from '@ca/domain';
import { AddIssuingCaHandler } from '../certificate-authority/add-issuing-ca.handler';
import { KEY_ALGORITHM } from '../certificate-authority/ca-queries';
import { carriesPolicy } from '../certificate-authority/issuing-ca-profile';
import { CaStore, IssuingCaForPolicy } from '../certificate-authority/ca.store';
import { IssuancePolicies, TenantPolicy } from './issuance-policies';

/**
 * docs/api.md#issuance-policy: set, remove and read a tenant's issuance policy. A change never
 * edits a CA: when the tenant's active issuing CA does not carry the EKU or the name constraints
 * of the new policy, a new issuing CA that does is made in the same request (the rollover of
 * docs/api.md#add-an-issuing-ca), and the policy commits with it.
 */
export class IssuancePolicyHandler {
  constructor(
    private readonly policies: IssuancePolicies,
    private readonly cas: CaStore,
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
        ? this.policies.store.remove(tenantId)
        : this.policies.store.replace(tenantId, policy, principal));
      return answer;
    }
    // Same key algorithm as the CA it replaces, valid until the root's end (the add defaults).
    const added = await this.addIssuingCa.execute(
      {
        tenantId,
        principal,
        requestId: command.requestId,
        request: { keyAlgorithm: KEY_ALGORITHM[current.keyAlgorithm] },
      },
      {
        policy,
        write: ({ policies }) =>
          policy === null ? policies.remove(tenantId) : policies.replace(tenantId, policy, principal),
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
  ): Promise<IssuingCaForPolicy | undefined> {
    const current = await this.cas.currentIssuingCaUnderOwnRoot(tenantId);
    if (!current || carriesPolicy(new Uint8Array(current.certificateDer), policy)) return undefined;
    return current;
  }
}

/** docs/api.md#issuance-policy: both fields null when the tenant has no policy. */
function policyAnswer(policy: TenantPolicy | null): IssuancePolicy {
  return policy ?? { allowedDnsSuffixes: null, allowedUsages: null };
}
