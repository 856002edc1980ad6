export * from './secret-scrubber';
export * from './logger';
export * from './nest-pino.logger';
