import { Command, UsageError, integerOption, printJson } from '../command';
import { CertificateSummary, summaryTable } from './cert-list';

/** `cert expiring [--days 30]`: Active certificates expiring within the window, soonest first (docs/api.md#expiring-certificates). */
export const certExpiring: Command = {
  name: 'cert expiring',
  summary: 'list certificates that expire within --days (30 by default)',
  usage: '[--days 30]',
  options: { days: { type: 'string' } },
  async run(context) {
    if (context.positionals.length > 0)
      throw new UsageError(`unexpected argument '${context.positionals[0]}'`);
    const days = integerOption(context.values, 'days', 30)!;
    const answer = await context.api.get<{ certificates: CertificateSummary[] }>(
      `v1/certificates/expiring?days=${days}`,
    );
    if (context.json) return printJson(context, answer);
    context.print(
      answer.certificates.length === 0
        ? `No certificates expire within ${days} days.`
        : summaryTable(answer.certificates),
    );
  },
};
