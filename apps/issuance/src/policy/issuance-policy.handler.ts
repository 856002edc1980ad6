import {
  GetIssuancePolicyQuery,
  IssuancePolicy,
  IssuancePolicyRequest,
  SetIssuancePolicyCommand,
  assertCommandFields,
  normalizedPolicySuffixes,
  validateDto,
} from '@ca/contracts';
import { IssuancePolicies } from './issuance-policies';

/** docs/api.md#issuance-policy: set, remove and read a tenant's issuance policy. */
export class IssuancePolicyHandler {
  constructor(private readonly policies: IssuancePolicies) {}

  /** A list replaces the policy (validated again here: issuance trusts no caller); null removes it. */
  async set(command: SetIssuancePolicyCommand): Promise<IssuancePolicy> {
    assertCommandFields(command, { tenantId: 'uuid', principal: 'principal', requestId: 'optionalText' });
    if (command.allowedDnsSuffixes === null) {
      await this.policies.remove(command.tenantId);
      return { allowedDnsSuffixes: null };
    }
    const request = await validateDto(IssuancePolicyRequest, {
      allowedDnsSuffixes: command.allowedDnsSuffixes,
    });
    const suffixes = normalizedPolicySuffixes(request.allowedDnsSuffixes);
    await this.policies.replace(command.tenantId, suffixes, command.principal);
    return { allowedDnsSuffixes: suffixes };
  }

  async get(query: GetIssuancePolicyQuery): Promise<IssuancePolicy> {
    assertCommandFields(query, { tenantId: 'uuid' });
    return { allowedDnsSuffixes: await this.policies.suffixesOf(query.tenantId) };
  }
}
