// Internals the system suites (apps/embedded/test) reach into on purpose: the Nest module whose
// routes the OpenAPI test enumerates, and the download links whose housekeeping a test drives.
export { GatewayModule, type GatewayDependencies } from './gateway.module';
export { DownloadLinks } from './downloads/download-links';
export { DownloadRepository } from './downloads/download.repository';
// The replicas benchmark (bench/replicas.ts) times audit appends on the gateway's own database.
export { AuditRepository } from './audit/audit.repository';
export { openGatewayDatabase } from './gateway-database';
