export * from './secret-scrubber';
export * from './logger';
export type { LogFormat } from './log-format';
export { flushLogs } from './log-destination';
export * from './nest-pino.logger';
export * from './metrics';
export * from './tracing';
