import { Command, onePositional, printJson, stringOption } from '../command';
import { assertFree, writeOwnerOnly } from '../secret-files';
import { details } from '../table';
import { CertificateSummary } from './cert-list';

interface CertificateDetail extends CertificateSummary {
  tenantId: string;
  issuedAt: string;
  certificatePem: string;
  revokedAt?: string;
  revocationReason?: string;
  renewalWindow?: { start: string; end: string };
  successorId?: string;
}

/** `cert show <id>`: one certificate (GET /v1/certificates/{id}); the PEM to a file with --cert-file. */
export const certShow: Command = {
  name: 'cert show',
  summary: 'show one certificate',
  usage: '<certificate-id> [--cert-file F]',
  options: { 'cert-file': { type: 'string' } },
  async run(context) {
    const id = onePositional(context.positionals, 'the certificate id');
    const certFile = stringOption(context.values, 'cert-file');
    assertFree([certFile], context.force);
    const c = await context.api.get<CertificateDetail>(`v1/certificates/${encodeURIComponent(id)}`);
    if (certFile) writeOwnerOnly(certFile, c.certificatePem, context.force);
    if (context.json) return printJson(context, c);
    context.print(
      details([
        ['Certificate id', c.certificateId],
        ['Common name', c.commonName],
        ['Client id', c.clientId],
        ['Serial', c.serialNumber],
        ['Status', c.status],
        ['Issued', c.issuedAt],
        ['Expires', `${c.expiresAt} (${c.daysUntilExpiration} days left)`],
        ['Revoked', c.revokedAt && `${c.revokedAt}${c.revocationReason ? ` (${c.revocationReason})` : ''}`],
        ['Renew between', c.renewalWindow && `${c.renewalWindow.start} and ${c.renewalWindow.end}`],
        ['Replaced by', c.successorId],
        ['Certificate', certFile],
      ]),
    );
    if (!certFile) context.print(c.certificatePem.trimEnd());
  },
};
