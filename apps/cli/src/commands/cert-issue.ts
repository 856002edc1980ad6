import {
  Command,
  OptionValues,
  UsageError,
  integerOption,
  listOption,
  onePositional,
  stringOption,
} from '../command';
import {
  IssuedMaterial,
  fileBaseName,
  issuedFileOptions,
  planIssuedFiles,
  saveIssued,
} from '../issued-files';

/** `--ext key=value` pairs as the customExtensions object (docs/api.md#issue-a-certificate-v2). */
function customExtensions(values: OptionValues): Record<string, string> | undefined {
  const pairs = listOption(values, 'ext');
  if (pairs.length === 0) return undefined;
  return Object.fromEntries(
    pairs.map((pair) => {
      const at = pair.indexOf('=');
      if (at < 1) throw new UsageError(`--ext takes key=value, got '${pair}'`);
      return [pair.slice(0, at), pair.slice(at + 1)];
    }),
  );
}

/** `cert issue <common-name>`: a new certificate and key pair through POST /v2/certificates. */
export const certIssue: Command = {
  name: 'cert issue',
  summary: 'issue a certificate and its private key',
  usage:
    '<common-name> --org ORG --ou UNIT --country CC [--client-id ID] [--days 90]\n' +
    '    [--usage Client|Server|ClientAndServer] [--san NAME]... [--must-staple] [--ext KEY=VALUE]...\n' +
    '    [--p12] [--cert-file F] [--key-file F] [--p12-file F]',
  options: {
    'client-id': { type: 'string' },
    org: { type: 'string' },
    ou: { type: 'string' },
    country: { type: 'string' },
    days: { type: 'string' },
    usage: { type: 'string' },
    san: { type: 'string', multiple: true },
    'must-staple': { type: 'boolean' },
    ext: { type: 'string', multiple: true },
    ...issuedFileOptions,
  },
  async run(context) {
    const { values } = context;
    const commonName = onePositional(context.positionals, 'the common name');
    const sans = listOption(values, 'san');
    const files = planIssuedFiles(context, fileBaseName(commonName));
    const answer = await context.api.post<IssuedMaterial & { certificateId: string }>('v2/certificates', {
      clientId: stringOption(values, 'client-id') ?? commonName,
      commonName,
      organization: stringOption(values, 'org'),
      organizationalUnit: stringOption(values, 'ou'),
      country: stringOption(values, 'country'),
      validityDays: integerOption(values, 'days', 90),
      usage: stringOption(values, 'usage'),
      subjectAlternativeNames: sans.length > 0 ? sans : undefined,
      mustStaple: values['must-staple'] === true ? true : undefined,
      customExtensions: customExtensions(values),
      passwordProtected: values.p12 === true ? true : undefined,
    });
    saveIssued(context, answer, ['Certificate id', answer.certificateId], files);
  },
};
