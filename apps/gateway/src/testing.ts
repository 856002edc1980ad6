// Internals the system suites (tests/system) reach into on purpose: the Nest module whose
// routes the OpenAPI test enumerates, and the download links whose housekeeping a test drives.
export { GatewayModule, type GatewayDependencies } from './gateway.module';
export { DownloadLinks } from './downloads/download-links';
// DownloadRepository: the name the downloads suite still imports the store by.
export { DownloadStore, DownloadStore as DownloadRepository } from './downloads/download.store';
// The replicas benchmark (bench/replicas.ts) times audit appends on the gateway's own database.
export { AuditStore } from './audit/audit.store';
export { openGatewayDatabase } from './gateway-database';
