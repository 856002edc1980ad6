import pino from 'pino';

/** LOG_FORMAT: `auto` is readable lines on a terminal, JSON everywhere else (services, CI, containers). */
export type LogFormat = 'auto' | 'json' | 'pretty';

/** Whether a logger writing to `output` prints for a person (`pretty`) or for a collector (`json`). */
export function resolveLogFormat(format: LogFormat, output: { isTTY?: boolean }): 'json' | 'pretty' {
  if (format === 'auto') return output.isTTY ? 'pretty' : 'json';
  return format;
}

type Prettify = (line: string) => string;

/**
 * One readable line per event (pino-pretty; an error's stack follows on its own lines), made from
 * the JSON line pino wrote: the same fields, already through the secret scrubber.
 */
export class PrettyLogDestination implements pino.DestinationStream {
  constructor(
    private readonly target: pino.DestinationStream,
    private readonly prettify: Prettify,
  ) {}

  write(line: string): void {
    this.target.write(this.prettify(line));
  }

  flush(callback?: (error?: Error) => void): void {
    const target = this.target as { flush?: (callback?: (error?: Error) => void) => void };
    if (target.flush) target.flush(callback);
    else callback?.();
  }
}

/**
 * pino-pretty's formatter, or undefined where it is not installed: it is a development dependency,
 * absent from the production image, whose services log JSON anyway.
 */
export function loadPrettifier(colorize: boolean): Prettify | undefined {
  let pretty: typeof import('pino-pretty');
  try {
    // Loaded only when asked for, so a service that logs JSON never needs it.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    pretty = require('pino-pretty');
  } catch {
    return undefined;
  }
  return pretty.prettyFactory({
    colorize,
    singleLine: true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,service,context',
    messageFormat: '{service}{if context} [{context}]{end}: {msg}',
  });
}
