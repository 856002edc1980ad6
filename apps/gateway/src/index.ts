export { startGateway, type GatewayOptions } from './start-gateway';
export { loadOrCreateDevelopmentJwtKeys } from './auth/development-jwt-keys';
export { startOperatorEndpoint, type OperatorEndpoint } from './operations/operator-endpoint';
