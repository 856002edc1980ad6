import { Command, integerOption, onePositional, printJson, stringOption } from '../command';
import { assertFree, writeOwnerOnly } from '../secret-files';
import { details } from '../table';

interface InitializeCaResponse {
  caId: string;
  certificatePem: string;
  expiresAt: string;
}

/** `ca init <common-name>`: the tenant's root CA (docs/api.md#initialize-the-ca). */
export const caInit: Command = {
  name: 'ca init',
  summary: "create the tenant's root CA",
  usage: '<common-name> --org ORG --country CC [--years 10] [--cert-file ca.crt]',
  options: {
    org: { type: 'string' },
    country: { type: 'string' },
    years: { type: 'string' },
    'cert-file': { type: 'string' },
  },
  async run(context) {
    const { values } = context;
    const certFile = stringOption(values, 'cert-file');
    assertFree([certFile], context.force);
    const ca = await context.api.post<InitializeCaResponse>('v1/ca/initialize', {
      commonName: onePositional(context.positionals, 'the CA common name'),
      organization: stringOption(values, 'org'),
      country: stringOption(values, 'country'),
      validityYears: integerOption(values, 'years', 10),
    });
    if (certFile) writeOwnerOnly(certFile, ca.certificatePem, context.force);
    if (context.json) return printJson(context, ca);
    context.print(
      details([
        ['CA id', ca.caId],
        ['Expires', ca.expiresAt],
        ['Certificate', certFile],
      ]),
    );
    if (!certFile) context.print(ca.certificatePem.trimEnd());
  },
};
