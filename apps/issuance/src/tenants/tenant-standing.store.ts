import { TenantUpdatedPayload } from '@ca/contracts';
import { EntityManager } from 'typeorm';
import { prepared } from '@ca/persistence';

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
 * What issue and renew enforce themselves (certificate-limit.ts): `issuance.tenants`, the newest
 * `tenant.updated` of each tenant, with each tenant's count of Active certificates
 * (`issuance.active_certificate_counts`).
 */
export abstract class TenantStandingStore {
  /**
   * Keeps the fact unless the stored one is newer; a stored one dated more than `maxSkewMs`
   * ahead of the database's clock loses to it.
   */
  abstract record(fact: TenantUpdatedPayload, maxSkewMs: number): Promise<void>;
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
  abstract lockAndRead(
    tenantIds: readonly string[],
    defaultLimit: number,
  ): Promise<Map<string, TenantStanding>>;
}

/** The statements of every issuance batch, prepared (prepared-statements.ts): keyed by tenant. */
const ENSURE_COUNTS = prepared(
  `INSERT INTO issuance.active_certificate_counts AS k (tenant_id, unrevoked, counted_after)
     SELECT tenant_id, 0, '-infinity' FROM unnest($1::uuid[]) AS u(tenant_id)
     ON CONFLICT (tenant_id) DO UPDATE SET unrevoked = k.unrevoked`,
);
const SWEEP_AND_READ = prepared(
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
);

export class SqlTenantStandingStore extends TenantStandingStore {
  constructor(private readonly db: EntityManager) {
    super();
  }

  async record(
    { tenantId, status, certificateLimit, updatedAt }: TenantUpdatedPayload,
    maxSkewMs: number,
  ): Promise<void> {
    await this.db.query(
      `INSERT INTO issuance.tenants AS t (tenant_id, status, certificate_limit, updated_at)
         VALUES ($1, $2, $3, $4)
         ON CONFLICT (tenant_id) DO UPDATE
           SET status = EXCLUDED.status, certificate_limit = EXCLUDED.certificate_limit,
               updated_at = EXCLUDED.updated_at
         WHERE t.updated_at <= EXCLUDED.updated_at OR t.updated_at > now() + $5 * interval '1 millisecond'`,
      [tenantId, status, certificateLimit, updatedAt, maxSkewMs],
    );
  }

  async lockAndRead(
    tenantIds: readonly string[],
    defaultLimit: number,
  ): Promise<Map<string, TenantStanding>> {
    const tenants = [...new Set(tenantIds.map((tenantId) => tenantId.toLowerCase()))].sort();
    const standings = new Map<string, TenantStanding>();
    if (tenants.length === 0) return standings;
    // A tenant with certificates always has its row (migration, trigger): a new row counts none.
    await this.db.query(ENSURE_COUNTS, [tenants]);
    const rows: {
      tenant_id: string;
      status: string | null;
      certificate_limit: number | null;
      active: string;
    }[] = await this.db.query(SWEEP_AND_READ, [tenants]);
    for (const row of rows) {
      standings.set(row.tenant_id.toLowerCase(), {
        suspended: row.status === 'suspended',
        limit: row.certificate_limit === null ? defaultLimit : Number(row.certificate_limit),
        active: Number(row.active),
      });
    }
    return standings;
  }
}

/** lockAndRead on `manager`'s transaction (the replicas benchmark times it alone). */
export function lockAndReadStandings(
  manager: EntityManager,
  tenantIds: readonly string[],
  defaultLimit: number,
): Promise<Map<string, TenantStanding>> {
  return new SqlTenantStandingStore(manager).lockAndRead(tenantIds, defaultLimit);
}
