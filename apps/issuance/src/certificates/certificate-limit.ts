import { CaError, ErrorCode } from '@ca/contracts';
import { EntityManager } from 'typeorm';

/** First key of the two-key advisory lock, so the tenant's hash cannot meet another lock's key. */
const CERTIFICATE_LIMIT_LOCK_SPACE = 0x63_65_72_74; // "cert"

/** A certificate about to be stored, with its tenant's plan limit (absent: no limit). */
export interface LimitedRequest {
  tenantId: string;
  limit: number | undefined;
}

/** Whether a plan limit applies; one that is not a sane count is a bug upstream, not the caller's fault. */
function hasLimit(request: LimitedRequest): request is LimitedRequest & { limit: number } {
  return request.limit !== undefined && request.limit !== null;
}

function isSaneLimit(limit: number): boolean {
  return Number.isSafeInteger(limit) && limit >= 0 && limit <= 0x7fffffff;
}

/**
 * Takes the transaction-scoped advisory lock of every tenant of the batch that has a plan limit,
 * in one statement and in sorted order (two replicas locking overlapping tenants cannot deadlock),
 * then counts their Active certificates (CONTRACT section 5: not revoked, not expired) in a
 * second statement, whose snapshot therefore sees every issuance committed while the locks were
 * awaited: two concurrent issuances cannot both take a tenant's last free slot. Must run in a
 * transaction. Returns the counts by lower-case tenant id (tenants without a limit are absent).
 */
export async function lockAndCountActive(
  manager: EntityManager,
  requests: readonly LimitedRequest[],
): Promise<Map<string, number>> {
  const tenants = [
    ...new Set(
      requests.filter((r) => hasLimit(r) && isSaneLimit(r.limit)).map((r) => r.tenantId.toLowerCase()),
    ),
  ].sort();
  const counts = new Map<string, number>(tenants.map((tenant) => [tenant, 0]));
  if (tenants.length === 0) return counts;
  await manager.query(
    'SELECT pg_advisory_xact_lock($1::int, hashtext(tenant)) FROM unnest($2::text[]) AS tenant',
    [CERTIFICATE_LIMIT_LOCK_SPACE, tenants],
  );
  const rows: { tenant_id: string; count: number }[] = await manager.query(
    `SELECT tenant_id::text AS tenant_id, count(*)::int AS count FROM issuance.certificates
      WHERE tenant_id = ANY($1::uuid[]) AND revoked_at IS NULL AND not_after > now()
      GROUP BY tenant_id`,
    [tenants],
  );
  for (const row of rows) counts.set(row.tenant_id.toLowerCase(), row.count);
  return counts;
}

/**
 * Decides, in batch order, which requests still fit their tenant's plan limit given the locked
 * counts of lockAndCountActive: each admitted one takes a slot from those after it. Returns, per
 * request, undefined (store it) or the error to answer with (CONFLICT CERTIFICATE_LIMIT_REACHED).
 */
export function admitWithinLimits(
  requests: readonly LimitedRequest[],
  activeCounts: ReadonlyMap<string, number>,
): (CaError | undefined)[] {
  const active = new Map(activeCounts);
  return requests.map((request) => {
    if (!hasLimit(request)) return undefined;
    if (!isSaneLimit(request.limit)) return new CaError(ErrorCode.Internal, 'An unexpected error occurred.');
    const tenant = request.tenantId.toLowerCase();
    const count = active.get(tenant) ?? 0;
    if (count >= request.limit) {
      return CaError.conflict(
        `The tenant's plan allows at most ${request.limit} active certificates and ${count} are active.`,
        ErrorCode.CertificateLimitReached,
      );
    }
    active.set(tenant, count + 1);
    return undefined;
  });
}
