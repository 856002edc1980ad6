import { CaError, ErrorCode } from '@ca/contracts';
import { EntityManager } from 'typeorm';

/** First key of the two-key advisory lock, so the tenant's hash cannot meet another lock's key. */
const CERTIFICATE_LIMIT_LOCK_SPACE = 0x63_65_72_74; // "cert"

/**
 * A tenant as issuance itself knows it when it stores certificates: status and plan limit from its
 * own `issuance.tenants` projection of the gateway's `tenant.updated` events (never from the
 * command), and its Active certificates counted under the lock.
 */
export interface TenantStanding {
  suspended: boolean;
  limit: number;
  active: number;
}

/**
 * Takes the transaction-scoped advisory lock of every tenant of the batch, in one statement and in
 * sorted order (two replicas locking overlapping tenants cannot deadlock), then reads, in a second
 * statement whose snapshot therefore sees every issuance committed while the locks were awaited,
 * each tenant's projected status and limit and its Active certificates (not
 * revoked, not expired): two concurrent issuances cannot both take a tenant's last free slot.
 * A tenant issuance has no row for yet gets `defaultLimit` and counts as active (fail closed on the
 * limit, never unlimited). Must run in a transaction. Keyed by lower-case tenant id.
 */
export async function lockAndReadStandings(
  manager: EntityManager,
  tenantIds: readonly string[],
  defaultLimit: number,
): Promise<Map<string, TenantStanding>> {
  const tenants = [...new Set(tenantIds.map((tenantId) => tenantId.toLowerCase()))].sort();
  const standings = new Map<string, TenantStanding>();
  if (tenants.length === 0) return standings;
  await manager.query(
    'SELECT pg_advisory_xact_lock($1::int, hashtext(tenant)) FROM unnest($2::text[]) AS tenant',
    [CERTIFICATE_LIMIT_LOCK_SPACE, tenants],
  );
  const rows: {
    tenant_id: string;
    status: string | null;
    certificate_limit: number | null;
    active: number;
  }[] = await manager.query(
    `SELECT u.tenant_id::text AS tenant_id, p.status, p.certificate_limit,
              (SELECT count(*)::int FROM issuance.certificates c
                WHERE c.tenant_id = u.tenant_id AND c.revoked_at IS NULL AND c.not_after > now()) AS active
         FROM unnest($1::uuid[]) AS u(tenant_id)
         LEFT JOIN issuance.tenants p ON p.tenant_id = u.tenant_id`,
    [tenants],
  );
  for (const row of rows) {
    standings.set(row.tenant_id.toLowerCase(), {
      suspended: row.status === 'suspended',
      limit: row.certificate_limit === null ? defaultLimit : Number(row.certificate_limit),
      active: Number(row.active),
    });
  }
  return standings;
}

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
