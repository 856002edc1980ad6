import pino, { Logger } from 'pino';
import { standardOutputDestination } from './log-destination';
import { LogFormat, PrettyLogDestination, loadPrettifier, resolveLogFormat } from './log-format';
import { scrubSecrets, scrubString } from './secret-scrubber';
import { currentLogFields } from './tracing/request-context';

export type { Logger } from 'pino';

export interface LoggerOptions {
  level: string;
  service: string;
  /** Where lines go; standard output by default, written once per event-loop turn (log-destination.ts). */
  destination?: pino.DestinationStream;
  /** JSON unless told otherwise; `auto` is pretty when standard output is a terminal (log-format.ts). */
  format?: LogFormat;
}

/**
 * A structured JSON logger whose every line passes through the secret scrubber and carries the
 * request id and trace id of the request it was written for; printed readably when `format` asks
 * for it (the same line, scrubbed the same way, then formatted).
 */
export function createLogger(options: LoggerOptions): Logger {
  return pino(
    {
      level: options.level,
      base: { service: options.service },
      timestamp: pino.stdTimeFunctions.isoTime,
      // Request id, trace id and span id of the request being served, in every service it reaches.
      mixin: currentLogFields,
      formatters: { log: (object) => scrubSecrets(object) },
      hooks: {
        logMethod(args, method) {
          const scrubbed = args.map((a) => (typeof a === 'string' ? scrubString(a) : a));
          return method.apply(this, scrubbed as Parameters<typeof method>);
        },
      },
    },
    destinationFor(options),
  );
}

function destinationFor(options: LoggerOptions): pino.DestinationStream {
  const target = options.destination ?? standardOutputDestination();
  const output: { isTTY?: boolean } = options.destination ? {} : process.stdout;
  if (resolveLogFormat(options.format ?? 'json', output) === 'json') return target;
  const prettify = loadPrettifier(Boolean(output.isTTY));
  return prettify ? new PrettyLogDestination(target, prettify) : target;
}
