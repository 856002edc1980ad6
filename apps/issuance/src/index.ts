export { startIssuance } from './start-issuance';
export { CUSTODY_USAGE, runCustodyCommandOnDatabase } from './custody/custody-command';
