import { ExpiryReport, IssuanceApi, IssuancePattern } from '@ca/contracts';
import { RpcClient } from '@ca/messaging';
import { OpsOutput } from '@ca/operations';

/** What the report needs: the issuance context, which alone holds the expiry facts. */
/** Issuance as the operator commands reach it (the expiry report, the CA list). */
export type ExpiryReportSource = Pick<RpcClient<IssuanceApi>, 'send'>;

/**
 * `npm run ops -- expiring [--days N] [--json]`: per tenant, the Active certificates whose
 * notAfter falls within N days, soonest first, as issuance reports them. For people: a summary
 * line, then per tenant a heading and one line per certificate; `--json`: one JSON object per
 * certificate (the ExpiringCertificateSummary of the admin API). Exit code 0 either way.
 */
export async function runExpiringReport(
  command: { days: number; json: boolean },
  issuance: ExpiryReportSource,
  io: OpsOutput,
): Promise<number> {
  const report = await issuance.send(IssuancePattern.ExpiryReport, { days: command.days });
  if (command.json) {
    for (const tenant of report.tenants)
      for (const certificate of tenant.certificates) await io.out(JSON.stringify(certificate));
    return 0;
  }
  for (const line of formatExpiryReport(report)) await io.out(line);
  return 0;
}

export function formatExpiryReport(report: ExpiryReport): string[] {
  const total = report.tenants.reduce((sum, t) => sum + t.certificates.length, 0);
  const lines = [
    `${total} Active certificate${total === 1 ? '' : 's'} expiring within ${report.days} days` +
      (total ? ` in ${report.tenants.length} tenant${report.tenants.length === 1 ? '' : 's'}` : ''),
  ];
  for (const tenant of report.tenants) {
    lines.push(`tenant ${tenant.tenantId}: ${tenant.certificates.length}`);
    for (const c of tenant.certificates)
      lines.push(
        `  ${c.expiresAt}  ${String(c.daysUntilExpiration).padStart(4)} d  ${c.serialNumber}  ${c.certificateId}  ` +
          `clientId=${JSON.stringify(c.clientId)} commonName=${JSON.stringify(c.commonName)}`,
      );
  }
  return lines;
}
