// The gateway's operator commands without the service (`@ca/gateway/commands`): `npm run ops`
// parses and runs them, and the index would bring NestJS and the whole HTTP stack (about 1.4 s to
// load) for nothing. In embedded mode the running process does the work.
export { OPS_USAGE, parseOpsCommand, type OpsCommand } from './operations/ops-command';
export { GatewayOperations } from './operations/gateway-operations';
export { runExpiringReport } from './operations/expiring-report';
export { openGatewayDatabase } from './gateway-database';
