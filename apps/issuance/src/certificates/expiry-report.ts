import { CaError, CertificateStatus, ExpiryReport, ExpiryReportQuery } from '@ca/contracts';
import { GaugeSample } from '@ca/observability';
import { DataSource } from 'typeorm';
import { addDays, daysUntilExpiration } from './certificate-lifecycle';

interface ExpiringRow {
  id: string;
  tenant_id: string;
  client_id: string;
  common_name: string;
  serial_number: string;
  not_after: Date;
}

/** The windows of the `ca_certificates_expiring` gauge, in days. */
export const EXPIRY_GAUGE_WINDOWS = [7, 30] as const;
const MAX_DAYS = 3650;

/**
 * Expiry across tenants, for operators: the `expiring` ops report and the per-tenant gauge.
 * Same rule as a tenant's own expiring list (docs/api.md#expiring-certificates): Active certificates (not
 * revoked) whose notAfter is in (now, now + days]. Uses the index on unrevoked notAfter.
 */
export class ExpiryReporter {
  constructor(private readonly dataSource: DataSource) {}

  async report(query: ExpiryReportQuery): Promise<ExpiryReport> {
    if (!Number.isInteger(query?.days) || query.days < 0 || query.days > MAX_DAYS)
      throw CaError.validation([
        { field: 'days', message: `days must be a whole number from 0 to ${MAX_DAYS}` },
      ]);
    const now = new Date();
    const rows: ExpiringRow[] = await this.dataSource.query(
      `SELECT id, tenant_id, client_id, common_name, serial_number, not_after FROM issuance.certificates
        WHERE revoked_at IS NULL AND not_after > $1 AND not_after <= $2
        ORDER BY tenant_id, not_after, id`,
      [now, addDays(now, query.days)],
    );
    const tenants: ExpiryReport['tenants'] = [];
    for (const r of rows) {
      if (tenants.at(-1)?.tenantId !== r.tenant_id) tenants.push({ tenantId: r.tenant_id, certificates: [] });
      tenants.at(-1)!.certificates.push({
        certificateId: r.id,
        tenantId: r.tenant_id,
        clientId: r.client_id,
        commonName: r.common_name,
        serialNumber: r.serial_number,
        status: CertificateStatus.Active,
        expiresAt: r.not_after.toISOString(),
        daysUntilExpiration: daysUntilExpiration(r.not_after, now),
      });
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
