import { Command, onePositional, printJson, stringOption } from '../command';
import { details } from '../table';

/** `cert release-hold <id> [--reason TEXT]`: ends a CertificateHold (see docs/operations.md). */
export const certReleaseHold: Command = {
  name: 'cert release-hold',
  summary: 'release a certificate revoked with CertificateHold (Active again)',
  usage: '<certificate-id> [--reason TEXT]',
  options: { reason: { type: 'string' } },
  async run(context) {
    const id = onePositional(context.positionals, 'the certificate id');
    const reason = stringOption(context.values, 'reason');
    const answer = await context.api.post<{ certificateId: string; releasedAt: string; heldSince: string }>(
      `v2/certificates/${encodeURIComponent(id)}/release-hold`,
      reason === undefined ? {} : { reason },
    );
    if (context.json) return printJson(context, answer);
    context.print(
      details([
        ['Released', answer.certificateId],
        ['Held since', answer.heldSince],
        ['At', answer.releasedAt],
      ]),
    );
  },
};
