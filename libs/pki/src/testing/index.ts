export {
  describeIfOpenssl,
  hasOpenssl,
  OPENSSL_NEW_P256_KEY,
  opensslCsr,
  runOpenssl,
  spawnOpenssl,
} from './openssl';
export { createTestPki, type TestPki } from './test-pki';
export { buildTestCsr, withBrokenSignature } from './test-csr';
