import { Messaging } from '@ca/messaging';
import { PolicyLookup } from './identifier-policy';

/** The tenant issuance policy, as issuance owns it (docs/api.md#issuance-policy). */
type PolicyApi = {
  'issuance.policy.get': [{ tenantId: string }, { allowedDnsSuffixes: string[] | null }];
};

/** Asks issuance each time (policies change rarely, and an order is rarer than a request). Fails closed. */
export function tenantPolicyLookup(messaging: Messaging): PolicyLookup {
  const client = messaging.rpcClient<PolicyApi>();
  return async (tenantId) => {
    const { allowedDnsSuffixes } = await client.send('issuance.policy.get', { tenantId });
    if (
      allowedDnsSuffixes !== null &&
      !(Array.isArray(allowedDnsSuffixes) && allowedDnsSuffixes.every((s) => typeof s === 'string'))
    ) {
      throw new Error('issuance answered an unreadable policy');
    }
    return allowedDnsSuffixes;
  };
}
