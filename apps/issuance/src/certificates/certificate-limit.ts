import { CaError, ErrorCode } from '@ca/contracts';
import type { TenantStanding } from '../tenants/tenant-standing.store';

export type { TenantStanding } from '../tenants/tenant-standing.store';

/**
 * Decides, in batch order, which requests may be stored given the locked standings of
 * lockAndReadStandings: a suspended tenant's are refused (FORBIDDEN, as the gateway answers), and
 * each admitted one takes a slot from those after it. Returns, per request, undefined (store it)
 * or the error to answer with (CONFLICT CERTIFICATE_LIMIT_REACHED past the plan limit).
 */
export function admitWithinLimits(
  requests: readonly { tenantId: string }[],
  standings: ReadonlyMap<string, TenantStanding>,
): (CaError | undefined)[] {
  const active = new Map<string, number>();
  return requests.map((request) => {
    const tenant = request.tenantId.toLowerCase();
    const standing = standings.get(tenant);
    if (!standing) return new CaError(ErrorCode.Internal, 'An unexpected error occurred.');
    if (standing.suspended) {
      return new CaError(
        ErrorCode.Forbidden,
        'The tenant is suspended; contact the operator of this service.',
      );
    }
    const count = active.get(tenant) ?? standing.active;
    if (count >= standing.limit) {
      return CaError.conflict(
        `The tenant's plan allows at most ${standing.limit} active certificates and ${count} are active.`,
        ErrorCode.CertificateLimitReached,
      );
    }
    active.set(tenant, count + 1);
    return undefined;
  });
}
