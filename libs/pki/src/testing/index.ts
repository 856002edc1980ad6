export { describeIfOpenssl, hasOpenssl, runOpenssl } from './openssl';
