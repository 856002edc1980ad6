import { Command, onePositional, printJson, stringOption } from '../command';
import { details } from '../table';

/** `cert revoke <id> --reason TEXT [--reason-code CODE]` (docs/api.md#revoke-a-certificate; codes are RFC 5280 5.3.1 CRLReason). */
export const certRevoke: Command = {
  name: 'cert revoke',
  summary: 'revoke a certificate (CRL and OCSP within seconds)',
  usage:
    '<certificate-id> --reason TEXT [--reason-code Unspecified|KeyCompromise|AffiliationChanged|\n' +
    '    Superseded|CessationOfOperation|CertificateHold|PrivilegeWithdrawn]',
  options: { reason: { type: 'string' }, 'reason-code': { type: 'string' } },
  async run(context) {
    const id = onePositional(context.positionals, 'the certificate id');
    const answer = await context.api.post<{ certificateId: string; revokedAt: string }>(
      `v1/certificates/${encodeURIComponent(id)}/revoke`,
      {
        reason: stringOption(context.values, 'reason'),
        reasonCode: stringOption(context.values, 'reason-code'),
      },
    );
    if (context.json) return printJson(context, answer);
    context.print(
      details([
        ['Revoked', answer.certificateId],
        ['At', answer.revokedAt],
      ]),
    );
  },
};
