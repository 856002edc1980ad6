import pino, { Logger } from 'pino';
import { standardOutputDestination } from './log-destination';
import { scrubSecrets, scrubString } from './secret-scrubber';
import { currentLogFields } from './tracing/request-context';

export type { Logger } from 'pino';

export interface LoggerOptions {
  level: string;
  service: string;
  /** Where lines go; standard output by default, written once per event-loop turn (log-destination.ts). */
  destination?: pino.DestinationStream;
}

/**
 * A structured JSON logger whose every line passes through the secret scrubber and carries the
 * request id and trace id of the request it was written for.
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
    options.destination ?? standardOutputDestination(),
  );
}
