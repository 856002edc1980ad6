import { Logger, createLogger } from '@ca/observability';

/**
 * The services' logs kept in memory, as the production logger writes them (JSON lines through the
 * secret scrubber), at `level`: for tests that search what was logged.
 */
export interface LogCapture {
  serviceLogger: (service: string) => Logger;
  /** Everything written so far. */
  text(): string;
  lineCount(): number;
}

export function captureLogs(level = 'debug'): LogCapture {
  const lines: string[] = [];
  const destination = { write: (line: string) => void lines.push(line) };
  const loggers = new Map<string, Logger>();
  return {
    serviceLogger: (service: string) => {
      let logger = loggers.get(service);
      if (!logger) {
        logger = createLogger({ level, service, destination });
        loggers.set(service, logger);
      }
      return logger;
    },
    text: () => lines.join(''),
    lineCount: () => lines.length,
  };
}
