import { IssuanceApi, IssuancePattern } from '@ca/contracts';
import { RpcClient } from '@ca/messaging';
import { PolicyLookup } from './identifier-policy';

/**
 * The tenant's issuance policy, asked of issuance, which owns it (docs/api.md#issuance-policy), at
 * each new order and validation: policies change rarely and orders are rare. Fails closed: an
 * unreadable answer or an error refuses the request.
 */
export function tenantPolicyLookup(issuance: RpcClient<IssuanceApi>): PolicyLookup {
  return async (tenantId) => {
    const { allowedDnsSuffixes } = await issuance.send(IssuancePattern.GetIssuancePolicy, { tenantId });
    const readable =
      allowedDnsSuffixes === null ||
      (Array.isArray(allowedDnsSuffixes) && allowedDnsSuffixes.every((s) => typeof s === 'string'));
    if (!readable) throw new Error('issuance answered an unreadable policy');
    return allowedDnsSuffixes;
  };
}
