import { EntityManager } from 'typeorm';
import { EXPIRING_COLUMNS, ExpiringRow } from './expiring-certificates';

/** The unrevoked certificates of `issuance.certificates` by notAfter: a tenant's, or across tenants (operators' view). */
export abstract class ExpiringCertificateStore {
  /** The tenant's ending after `from` and by `to`, soonest first. */
  abstract ofTenant(tenantId: string, from: Date, to: Date): Promise<ExpiringRow[]>;
  /** Those ending after `from` and by `to`, by tenant, then notAfter. */
  abstract between(from: Date, to: Date): Promise<ExpiringRow[]>;
  /** Per tenant, how many end after `now` and by `short`, and by `long`. */
  abstract countsPerTenant(
    now: Date,
    short: Date,
    long: Date,
  ): Promise<{ tenantId: string; short: number; long: number }[]>;
}

export class SqlExpiringCertificateStore extends ExpiringCertificateStore {
  constructor(private readonly db: EntityManager) {
    super();
  }

  ofTenant(tenantId: string, from: Date, to: Date): Promise<ExpiringRow[]> {
    return this.db.query(
      `SELECT ${EXPIRING_COLUMNS} FROM issuance.certificates
        WHERE tenant_id = $1 AND revoked_at IS NULL AND not_after > $2 AND not_after <= $3
        ORDER BY not_after, id`,
      [tenantId, from, to],
    );
  }

  between(from: Date, to: Date): Promise<ExpiringRow[]> {
    return this.db.query(
      `SELECT ${EXPIRING_COLUMNS} FROM issuance.certificates
        WHERE revoked_at IS NULL AND not_after > $1 AND not_after <= $2
        ORDER BY tenant_id, not_after, id`,
      [from, to],
    );
  }

  async countsPerTenant(
    now: Date,
    short: Date,
    long: Date,
  ): Promise<{ tenantId: string; short: number; long: number }[]> {
    const rows: { tenant_id: string; short: string; long: string }[] = await this.db.query(
      `SELECT tenant_id, count(*) FILTER (WHERE not_after <= $2) AS short, count(*) AS long
         FROM issuance.certificates
        WHERE revoked_at IS NULL AND not_after > $1 AND not_after <= $3
        GROUP BY tenant_id`,
      [now, short, long],
    );
    return rows.map((r) => ({ tenantId: r.tenant_id, short: Number(r.short), long: Number(r.long) }));
  }
}
