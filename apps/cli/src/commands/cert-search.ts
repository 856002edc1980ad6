import {
  Command,
  OptionSpecs,
  OptionValues,
  UsageError,
  integerOption,
  printJson,
  stringOption,
} from '../command';
import { table } from '../table';

/** The list filters (docs/api.md#search-certificates) as options: --client-id for clientId, etc. */
export const FILTER_OPTIONS = {
  status: 'status',
  q: 'q',
  'client-id': 'clientId',
  'ca-id': 'caId',
  usage: 'usage',
  source: 'source',
  'expires-before': 'expiresBefore',
  'expires-after': 'expiresAfter',
  'issued-before': 'issuedBefore',
  'issued-after': 'issuedAfter',
  sort: 'sort',
} as const;

export const FILTER_USAGE =
  '[--status Active,Revoked,Expired] [--q TEXT] [--client-id ID] [--ca-id UUID] [--usage Client|Server|ClientAndServer] [--source api|csr|acme] [--expires-before T] [--expires-after T] [--issued-before T] [--issued-after T] [--sort -issuedAt|issuedAt|expiresAt|-expiresAt]';

export const filterOptionSpecs: OptionSpecs = Object.fromEntries(
  Object.keys(FILTER_OPTIONS).map((name) => [name, { type: 'string' as const }]),
);

/** The query string of the filter options given (the API checks each value). */
export function filterQuery(values: OptionValues): URLSearchParams {
  const query = new URLSearchParams();
  for (const [option, parameter] of Object.entries(FILTER_OPTIONS)) {
    const value = stringOption(values, option);
    if (value !== undefined) query.set(parameter, value);
  }
  return query;
}

interface InventoryItem {
  certificateId: string;
  clientId: string;
  commonName: string;
  serialNumber: string;
  status: string;
  expiresAt: string;
  usage: string;
  source: string;
}
interface Page {
  certificates: InventoryItem[];
  nextCursor: string | null;
}

/** `cert search`: one page of the filtered inventory, or every page with --all (GET /v2/certificates). */
export const certSearch: Command = {
  name: 'cert search',
  summary: 'search certificates by status, text, client, CA, usage, source and dates',
  usage: `${FILTER_USAGE} [--limit 100] [--cursor C] [--all]`,
  options: {
    ...filterOptionSpecs,
    limit: { type: 'string' },
    cursor: { type: 'string' },
    all: { type: 'boolean' },
  },
  async run(context) {
    if (context.positionals.length > 0)
      throw new UsageError(`unexpected argument '${context.positionals[0]}'`);
    const query = filterQuery(context.values);
    const all = context.values.all === true;
    const limit = integerOption(context.values, 'limit');
    if (limit !== undefined) query.set('limit', String(limit));
    else if (all) query.set('limit', '1000');
    let cursor = stringOption(context.values, 'cursor');
    const certificates: InventoryItem[] = [];
    let page: Page;
    do {
      if (cursor) query.set('cursor', cursor);
      page = await context.api.get<Page>(`v2/certificates?${query.toString()}`);
      certificates.push(...page.certificates);
      cursor = page.nextCursor ?? undefined;
    } while (all && cursor);
    if (context.json) return printJson(context, all ? { certificates, nextCursor: null } : page);
    context.print(
      certificates.length === 0
        ? 'No certificates.'
        : table(
            ['ID', 'COMMON NAME', 'CLIENT', 'SERIAL', 'STATUS', 'USAGE', 'SOURCE', 'EXPIRES'],
            certificates.map((c) => [
              c.certificateId,
              c.commonName,
              c.clientId,
              c.serialNumber,
              c.status,
              c.usage,
              c.source,
              c.expiresAt.slice(0, 10),
            ]),
          ),
    );
    if (!all && page.nextCursor) context.print(`More: add --cursor ${page.nextCursor} (or --all).`);
  },
};
