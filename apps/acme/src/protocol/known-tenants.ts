import { IssuanceApi, IssuancePattern, parseTenantId } from '@ca/contracts';
import { RpcClient } from '@ca/messaging';

/** How long a tenant found with a CA is believed without asking again: a CA, once made, stays listed. */
export const KNOWN_TENANT_TTL_MS = 10 * 60_000;
/** At most this many tenants remembered per replica; the oldest is forgotten first. */
const MAX_REMEMBERED = 10_000;

/**
 * Whether an ACME path's tenant segment is a tenant with a CA (docs/api.md#acme): only those have
 * an ACME server, so a made-up segment gets no directory, no nonces and no rate-limit windows.
 * Issuance owns the CAs and is asked (`issuance.ca.list`); a yes is remembered for a while, a no is
 * never (a tenant initialized a moment ago must be served at once), but concurrent questions about
 * one tenant share one request. A segment that is no tenant id is refused without asking.
 */
export class KnownTenants {
  private readonly known = new Map<string, number>();
  private readonly asking = new Map<string, Promise<boolean>>();

  constructor(
    private readonly hasCa: (tenantId: string) => Promise<boolean>,
    private readonly now: () => number = Date.now,
  ) {}

  async has(tenantId: string): Promise<boolean> {
    // A path names a tenant only by its id as issued, lower-case (the ACME URLs are built from
    // the path as sent, so another spelling would be another server); anything else is no tenant.
    if (parseTenantId(tenantId) !== tenantId) return false;
    const until = this.known.get(tenantId);
    if (until !== undefined && until > this.now()) return true;
    let answer = this.asking.get(tenantId);
    if (!answer) {
      answer = this.hasCa(tenantId).finally(() => this.asking.delete(tenantId));
      this.asking.set(tenantId, answer);
    }
    const found = await answer;
    if (found) this.remember(tenantId);
    return found;
  }

  private remember(tenantId: string): void {
    this.known.delete(tenantId);
    if (this.known.size >= MAX_REMEMBERED) this.known.delete(this.known.keys().next().value as string);
    this.known.set(tenantId, this.now() + KNOWN_TENANT_TTL_MS);
  }
}

/** Asks issuance whether the tenant has any CA (active, retired, revoked or waiting for its certificate). */
export function issuanceHasCa(issuance: RpcClient<IssuanceApi>): (tenantId: string) => Promise<boolean> {
  return async (tenantId) => {
    const { cas } = await issuance.send(IssuancePattern.ListCas, { tenantId, principal: 'acme' });
    return Array.isArray(cas) && cas.length > 0;
  };
}
