import { LoggerService } from '@nestjs/common';
import { Logger } from 'pino';

/**
 * Nest's own start-up chatter: one line per route mapped and per module wired, dozens before a
 * system is ready, none of which an operator acts on. Logged at debug (`LOG_LEVEL=debug` shows them).
 */
const FRAMEWORK_WIRING = new Set(['RoutesResolver', 'RouterExplorer', 'InstanceLoader']);

/**
 * Nest's logger interface over pino. Nest passes `(message, ...params, context)`; an object
 * message becomes the structured part of the line.
 */
export class NestPinoLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  log(message: unknown, ...params: unknown[]): void {
    const context = params[params.length - 1];
    this.write(
      typeof context === 'string' && FRAMEWORK_WIRING.has(context) ? 'debug' : 'info',
      message,
      params,
    );
  }
  error(message: unknown, ...params: unknown[]): void {
    this.write('error', message, params);
  }
  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params);
  }
  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }
  verbose(message: unknown, ...params: unknown[]): void {
    this.write('trace', message, params);
  }
  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, params);
  }

  private write(
    level: 'info' | 'error' | 'warn' | 'debug' | 'trace' | 'fatal',
    message: unknown,
    params: unknown[],
  ): void {
    const context = typeof params[params.length - 1] === 'string' ? (params.pop() as string) : undefined;
    const text = params.find((p): p is string => typeof p === 'string');
    if (message && typeof message === 'object' && !(message instanceof Error)) {
      this.logger[level]({ context, ...(message as object) }, text);
    } else if (message instanceof Error) {
      this.logger[level]({ context, err: message }, message.message);
    } else {
      this.logger[level]({ context }, String(message));
    }
  }
}
