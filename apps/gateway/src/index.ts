// The gateway's public face: what the composition root (apps/embedded) starts, and what the
// operator tools (tools/ops.ts, tools/token.ts) run. Everything else in src/ is internal.
export { startGateway, type GatewayOptions } from './start-gateway';
export { loadOrCreateDevelopmentJwtKeys } from './auth/development-jwt-keys';
export { startOperatorEndpoint } from './operations/operator-endpoint';
export { OPS_USAGE, parseOpsCommand, type OpsCommand } from './operations/ops-command';
export { GatewayOperations } from './operations/gateway-operations';
export { runExpiringReport } from './operations/expiring-report';
export { openGatewayDatabase } from './gateway-database';
