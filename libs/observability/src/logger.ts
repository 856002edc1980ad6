import pino, { Logger } from 'pino';
import { scrubSecrets, scrubString } from './secret-scrubber';

export type { Logger } from 'pino';

export interface LoggerOptions {
  level: string;
  service: string;
  /** Where lines go; standard output by default. */
  destination?: pino.DestinationStream;
}

/** A structured JSON logger whose every line passes through the secret scrubber. */
export function createLogger(options: LoggerOptions): Logger {
  return pino(
    {
      level: options.level,
      base: { service: options.service },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { log: (object) => scrubSecrets(object) },
      hooks: {
        logMethod(args, method) {
          const scrubbed = args.map((a) => (typeof a === 'string' ? scrubString(a) : a));
          return method.apply(this, scrubbed as Parameters<typeof method>);
        },
      },
    },
    options.destination,
  );
}
