export * from './embedded-postgres';
export * from './schema-data-source';
export * from './is-unique-violation';
export * from './is-database-unavailable';
