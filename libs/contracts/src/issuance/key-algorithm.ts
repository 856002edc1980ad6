/**
 * docs/api.md#key-algorithms: the key algorithms of CAs and leaves a message or request body may
 * name. Which of them a deployment offers, and the defaults, are libs/domain's rules.
 */
export const KeyAlgorithm = {
  P256: 'P-256',
  P384: 'P-384',
  /** Only as a deployment's KEY_ALGORITHM (docs/operations.md#configuration): too weak to offer everywhere. */
  Rsa2048: 'RSA-2048',
  Rsa3072: 'RSA-3072',
  Rsa4096: 'RSA-4096',
} as const;

export type KeyAlgorithm = (typeof KeyAlgorithm)[keyof typeof KeyAlgorithm];

/** Every algorithm a CA or leaf may have in some deployment: what request bodies and events may carry. */
export const KEY_ALGORITHMS: readonly KeyAlgorithm[] = Object.values(KeyAlgorithm);

/** docs/api.md#initialize-the-ca-v2: the CAs a tenant gets. */
export const CaHierarchy = {
  /** A root whose key signs only issuing CAs and its CRL, and an issuing CA that signs leaves. */
  RootAndIssuing: 'RootAndIssuing',
  /** A root that signs leaves itself, as /v1/ca/initialize makes. */
  RootOnly: 'RootOnly',
  /**
   * An issuing CA whose key we hold, certified by the tenant's own (corporate) root from our CSR
   * (docs/api.md#external-root): we hold no root key.
   */
  ExternalRoot: 'ExternalRoot',
} as const;

export type CaHierarchy = (typeof CaHierarchy)[keyof typeof CaHierarchy];

/** Role of one of a tenant's CAs. */
export const CaRole = { Root: 'root', Issuing: 'issuing' } as const;
export type CaRole = (typeof CaRole)[keyof typeof CaRole];
