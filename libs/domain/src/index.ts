export * from './key-algorithm.rules';
export * from './csr.rules';
export * from './dns-name.rules';
export * from './issuance-policy.rules';
export * from './issue-certificate-v2.rules';
export * from './validate-request';
export * from './validity.rules';
