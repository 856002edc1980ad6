export { describeIfOpenssl, hasOpenssl, runOpenssl, spawnOpenssl } from './openssl';
export { createTestPki, type TestPki } from './test-pki';
export { buildTestCsr, withBrokenSignature } from './test-csr';
