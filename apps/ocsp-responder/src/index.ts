export { startOcspResponder } from './start-ocsp-responder';
