export { describeKeyCustodyContract } from './key-custody.contract';
export { createSoftHsmToken, describeIfSoftHsm, softHsmLibrary, type SoftHsmToken } from './softhsm-token';
export { exportLocalPrivateKeyForTest } from './export-local-key';
