import { CreateTenants1764633600000 } from './1764633600000-create-tenants';
import { CreateAuditEvents1764633700000 } from './1764633700000-create-audit-events';
import { CreateRateLimitWindows1764633800000 } from './1764633800000-create-rate-limit-windows';
import { CreateDownloads1764633900000 } from './1764633900000-create-downloads';
import { CreateAuditDeadLetters1764634000000 } from './1764634000000-create-audit-dead-letters';
import { CreateGatewayOutbox1766200000000 } from './1766200000000-create-gateway-outbox';

/** In order; each runs once per database (TypeORM's gateway.migrations table). */
export const GATEWAY_MIGRATIONS = [
  CreateTenants1764633600000,
  CreateAuditEvents1764633700000,
  CreateRateLimitWindows1764633800000,
  CreateDownloads1764633900000,
  CreateAuditDeadLetters1764634000000,
  CreateGatewayOutbox1766200000000,
];
