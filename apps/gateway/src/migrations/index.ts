import { CreateTenants1764633600000 } from './1764633600000-create-tenants';
import { CreateAuditEvents1764633700000 } from './1764633700000-create-audit-events';
import { CreateRateLimitWindows1764633800000 } from './1764633800000-create-rate-limit-windows';
import { CreateDownloads1764633900000 } from './1764633900000-create-downloads';
import { CreateAuditDeadLetters1764634000000 } from './1764634000000-create-audit-dead-letters';
import { CreateGatewayOutbox1766200000000 } from './1766200000000-create-gateway-outbox';
import { AuditChainPerTenant1766400000000 } from './1766400000000-audit-chain-per-tenant';
import { CreateJobAudits1767960000000 } from './1767960000000-create-job-audits';

/** In order; each runs once per database (TypeORM's gateway.migrations table). */
export const GATEWAY_MIGRATIONS = [
  CreateTenants1764633600000,
  CreateAuditEvents1764633700000,
  CreateRateLimitWindows1764633800000,
  CreateDownloads1764633900000,
  CreateAuditDeadLetters1764634000000,
  CreateGatewayOutbox1766200000000,
  AuditChainPerTenant1766400000000,
  CreateJobAudits1767960000000,
];
