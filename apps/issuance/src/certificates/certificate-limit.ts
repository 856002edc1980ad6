import { CaError, ErrorCode } from '@ca/contracts';
import { EntityManager } from 'typeorm';

/**
 * A tenant as issuance itself knows it when it stores certificates: status and plan limit from its
 * own `issuance.tenants` projection of the gateway's `tenant.updated` events (never from the
 * command), and its Active certificates as its locked counter row says.
 */
export interface TenantStanding {
  suspended: boolean;
  limit: number;
  active: number;
}

/**
 * Locks the counter row (issuance.active_certificate_counts) of every tenant of the batch, in one
 * statement and in sorted order (two replicas locking overlapping tenants cannot deadlock; a
 * tenant's first admission makes its row), then reads, in a second statement whose snapshot
 * therefore sees every issuance committed while the locks were awaited, each tenant's projected
 * status and limit and its Active certificates (not revoked, notAfter after now): two concurrent
 * issuances cannot both take a tenant's last free slot.
 *
 * Active comes from the counter row, not from counting certificates: the row counts the
 * unrevoked certificates whose notAfter is after its `counted_after` (a trigger keeps it with
 * every insert and revocation change, in their transaction); those that expired since are
 * subtracted here by an indexed range query, and `counted_after` moves to now. So the cost is the
 * certificates expired since the tenant's last admission, not all its certificates, and the count
 * stays exact. A revocation committing meanwhile waits for the row, then finds `counted_after`
 * past an expired certificate's notAfter and leaves the count alone (it was subtracted here).
 *
 * A tenant issuance has no `tenant.updated` for yet gets `defaultLimit` (fail closed on the limit,
 * never unlimited). Must run in a transaction. Keyed by lower-case tenant id.
 */
export async function lockAndReadStandings(
  manager: EntityManager,
  tenantIds: readonly string[],
  defaultLimit: number,
): Promise<Map<string, TenantStanding>> {
  const tenants = [...new Set(tenantIds.map((tenantId) => tenantId.toLowerCase()))].sort();
  const standings = new Map<string, TenantStanding>();
  if (tenants.length === 0) return standings;
  // A tenant with certificates always has its row (migration, trigger): a new row counts none.
  await manager.query(
    `INSERT INTO issuance.active_certificate_counts AS k (tenant_id, unrevoked, counted_after)
     SELECT tenant_id, 0, '-infinity' FROM unnest($1::uuid[]) AS u(tenant_id)
     ON CONFLICT (tenant_id) DO UPDATE SET unrevoked = k.unrevoked`,
    [tenants],
  );
  const rows: {
    tenant_id: string;
    status: string | null;
    certificate_limit: number | null;
    active: string;
  }[] = await manager.query(
    `WITH swept AS (
       UPDATE issuance.active_certificate_counts k
          SET unrevoked = k.unrevoked - (SELECT count(*) FROM issuance.certificates c
                WHERE c.tenant_id = k.tenant_id AND c.revoked_at IS NULL
                  AND c.not_after > k.counted_after AND c.not_after <= s.at),
              counted_after = GREATEST(k.counted_after, s.at)
         FROM (SELECT clock_timestamp() AS at) s
        WHERE k.tenant_id = ANY($1::uuid[])
        RETURNING k.tenant_id, k.unrevoked)
     SELECT u.tenant_id::text AS tenant_id, p.status, p.certificate_limit, swept.unrevoked AS active
       FROM unnest($1::uuid[]) AS u(tenant_id)
       LEFT JOIN issuance.tenants p ON p.tenant_id = u.tenant_id
       LEFT JOIN swept ON swept.tenant_id = u.tenant_id`,
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
