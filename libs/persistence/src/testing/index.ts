export * from './embedded-data-dir';
export * from './test-database';
