import { ExpiryReport, ExpiryReportQuery } from '@ca/contracts';
import { GaugeSample } from '@ca/observability';
import { addDays } from './certificate-lifecycle';
import { ExpiringCertificateStore } from './expiring-certificate.store';
import { expiringSummary, expiringWindow } from './expiring-certificates';

/** The windows of the `ca_certificates_expiring` gauge, in days. */
export const EXPIRY_GAUGE_WINDOWS = [7, 30] as const;

/**
 * Expiry across tenants, for operators: the `expiring` ops report and the per-tenant gauge.
 * Same rule as a tenant's own expiring list (`expiring-certificates.ts`); uses the index on
 * unrevoked notAfter.
 */
export class ExpiryReporter {
  constructor(private readonly certificates: ExpiringCertificateStore) {}

  async report(query: ExpiryReportQuery): Promise<ExpiryReport> {
    const { from, to } = expiringWindow(query?.days);
    const rows = await this.certificates.between(from, to);
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
    const counts = await this.certificates.countsPerTenant(now, addDays(now, short), addDays(now, long));
    return counts.flatMap((c) => [
      { labels: { tenant: c.tenantId, within_days: String(short) }, value: c.short },
      { labels: { tenant: c.tenantId, within_days: String(long) }, value: c.long },
    ]);
  }
}
