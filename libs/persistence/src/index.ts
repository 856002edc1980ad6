export * from './embedded-postgres';
export * from './schema-data-source';
export * from './prepared-statements';
export * from './is-unique-violation';
export * from './is-database-unavailable';
export * from './rate-limit/increment-batcher';
export * from './rate-limit/rate-limit-window';
export * from './rate-limit/rate-limit-window.store';
