export * from './service-runtime';
export * from './health.server';
export * from './run-service';
export * from './health.controller';
export * from './metrics.endpoint';
export * from './once';
export * from './http-limits';
