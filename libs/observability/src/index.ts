export * from './secret-scrubber';
export * from './logger';
export * from './nest-pino.logger';
export * from './metrics';
export * from './tracing';
