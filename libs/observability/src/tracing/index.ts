export * from './tracing';
export * from './request-context';
export * from './http-observability';
