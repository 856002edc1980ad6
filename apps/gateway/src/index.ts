export { startGateway } from './start-gateway';
export { loadOrCreateDevelopmentJwtKeys } from './auth/development-jwt-keys';
