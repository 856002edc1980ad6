import { Command, integerOption, onePositional } from '../command';
import {
  IssuedMaterial,
  fileBaseName,
  issuedFileOptions,
  planIssuedFiles,
  saveIssued,
} from '../issued-files';

/** `cert renew <id>`: a new certificate and key with the same attributes (docs/api.md#renew-a-certificate, v2 keeps extensions). */
export const certRenew: Command = {
  name: 'cert renew',
  summary: 'renew a certificate (new key, same subject and extensions)',
  usage: '<certificate-id> [--days 90] [--p12] [--cert-file F] [--key-file F] [--p12-file F]',
  options: { days: { type: 'string' }, ...issuedFileOptions },
  async run(context) {
    const id = onePositional(context.positionals, 'the certificate id');
    const files = planIssuedFiles(context, `renewed-${fileBaseName(id)}`);
    const answer = await context.api.post<IssuedMaterial & { newCertificateId: string }>(
      `v2/certificates/${encodeURIComponent(id)}/renew`,
      {
        validityDays: integerOption(context.values, 'days', 90),
        passwordProtected: context.values.p12 === true ? true : undefined,
      },
    );
    saveIssued(context, answer, ['New certificate id', answer.newCertificateId], files);
  },
};
