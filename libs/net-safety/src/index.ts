export * from './non-public-address';
