export { describeIfOpenssl, hasOpenssl, runOpenssl, spawnOpenssl } from './openssl';
export { createTestPki, type TestPki } from './test-pki';
