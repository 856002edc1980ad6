export { startIssuance } from './start-issuance';
