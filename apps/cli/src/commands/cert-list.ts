import { Command, UsageError, printJson } from '../command';
import { table } from '../table';

/** A row of the list and expiring answers (docs/api.md#certificate-fields-and-status, docs/api.md#list-certificates, docs/api.md#expiring-certificates). */
export interface CertificateSummary {
  certificateId: string;
  clientId: string;
  commonName: string;
  serialNumber: string;
  status: string;
  expiresAt: string;
  daysUntilExpiration: number;
}

/** The summaries as a table for people; dates shortened to the day. */
export function summaryTable(certificates: CertificateSummary[]): string {
  if (certificates.length === 0) return 'No certificates.';
  return table(
    ['ID', 'COMMON NAME', 'CLIENT', 'SERIAL', 'STATUS', 'EXPIRES', 'DAYS LEFT'],
    certificates.map((c) => [
      c.certificateId,
      c.commonName,
      c.clientId,
      c.serialNumber,
      c.status,
      c.expiresAt.slice(0, 10),
      c.daysUntilExpiration,
    ]),
  );
}

/** `cert list`: every certificate of the tenant (GET /v1/certificates). */
export const certList: Command = {
  name: 'cert list',
  summary: "list the tenant's certificates",
  usage: '',
  options: {},
  async run(context) {
    if (context.positionals.length > 0)
      throw new UsageError(`unexpected argument '${context.positionals[0]}'`);
    const answer = await context.api.get<{ certificates: CertificateSummary[] }>('v1/certificates');
    if (context.json) return printJson(context, answer);
    context.print(summaryTable(answer.certificates));
  },
};
