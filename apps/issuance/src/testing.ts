// Internals the replicas benchmark (bench/replicas.ts) times directly: the plan limit's
// admission statements on issuance's own schema.
export { lockAndReadStandings } from './tenants/tenant-standing.store';
export { ISSUANCE_MIGRATIONS } from './migrations';
