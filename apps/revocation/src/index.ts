export { startRevocation } from './start-revocation';
