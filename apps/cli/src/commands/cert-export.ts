import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { Writable } from 'node:stream';
import { Command, UsageError, stringOption } from '../command';
import { FILTER_USAGE, filterOptionSpecs, filterQuery } from './cert-search';

const FORMATS: Record<string, string> = { ndjson: 'application/x-ndjson', csv: 'text/csv' };

/** `cert export`: every match, streamed to stdout or --output (GET /v2/certificates/export). */
export const certExport: Command = {
  name: 'cert export',
  summary: 'write every matching certificate as NDJSON or CSV, streamed',
  usage: `${FILTER_USAGE} [--format ndjson|csv] [--output FILE]`,
  options: { ...filterOptionSpecs, format: { type: 'string' }, output: { type: 'string' } },
  async run(context) {
    if (context.positionals.length > 0)
      throw new UsageError(`unexpected argument '${context.positionals[0]}'`);
    const format = stringOption(context.values, 'format') ?? 'ndjson';
    if (!FORMATS[format]) throw new UsageError(`--format must be ndjson or csv, got '${format}'`);
    const path = stringOption(context.values, 'output');
    const out: Writable = path
      ? createWriteStream(path, { flags: context.force ? 'w' : 'wx' })
      : process.stdout;
    try {
      for await (const chunk of context.api.stream(
        `v2/certificates/export?${filterQuery(context.values)}`,
        FORMATS[format],
      )) {
        if (!out.write(chunk)) await once(out, 'drain');
      }
    } finally {
      if (path) {
        out.end();
        await once(out, 'close');
      }
    }
  },
};
