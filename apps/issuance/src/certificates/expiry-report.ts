import { ExpiryReport, ExpiryReportQuery } from '@ca/contracts';
import { GaugeSample } from '@ca/observability';
import { DataSource } from 'typeorm';
import { addDays } from './certificate-lifecycle';
import { EXPIRING_COLUMNS, ExpiringRow, expiringSummary, expiringWindow } from './expiring-certificates';

/** The windows of the `ca_certificates_expiring` gauge, in days. */
export const EXPIRY_GAUGE_WINDOWS = [7, 30] as const;

/**
 * Expiry across tenants, for operators: the `expiring` ops report and the per-tenant gauge.
 * Same rule as a tenant's own expiring list (`expiring-certificates.ts`); uses the index on
 * unrevoked notAfter.
 */
export class ExpiryReporter {
  constructor(private readonly dataSource: DataSource) {}

  async report(query: ExpiryReportQuery): Promise<ExpiryReport> {
    const { from, to } = expiringWindow(query?.days);
    const rows: ExpiringRow[] = await this.dataSource.query(
      `SELECT ${EXPIRING_COLUMNS} FROM issuance.certificates
        WHERE revoked_at IS NULL AND not_after > $1 AND not_after <= $2
        ORDER BY tenant_id, not_after, id`,
      [from, to],
    );
    const tenants: ExpiryReport['tenants'] = [];
    for (const r of rows) {
      if (tenants.at(-1)?.tenantId !== r.tenant_id) tenants.push({ tenantId: r.tenant_id, certificates: [] });
      tenants.at(-1)!.certificates.push(expiringSummary(r, from));
    }
    return { days: query.days, tenants };
  }

  /** Samples of `ca_certificates_expiring{tenant, within_days}`: tenants with none are left out. */
  async gaugeSamples(): Promise<GaugeSample<'tenant' | 'within_days'>[]> {
    const now = new Date();
    const [short, long] = EXPIRY_GAUGE_WINDOWS;
    const rows: { tenant_id: string; short: string; long: string }[] = await this.dataSource.query(
      `SELECT tenant_id, count(*) FILTER (WHERE not_after <= $2) AS short, count(*) AS long
         FROM issuance.certificates
        WHERE revoked_at IS NULL AND not_after > $1 AND not_after <= $3
        GROUP BY tenant_id`,
      [now, addDays(now, short), addDays(now, long)],
    );
    return rows.flatMap((r) => [
      { labels: { tenant: r.tenant_id, within_days: String(short) }, value: Number(r.short) },
      { labels: { tenant: r.tenant_id, within_days: String(long) }, value: Number(r.long) },
    ]);
  }
}
