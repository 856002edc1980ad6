export * from './embedded-postgres';
export * from './schema-data-source';
export * from './is-unique-violation';
