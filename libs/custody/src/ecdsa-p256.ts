import type { webcrypto } from 'node:crypto';

import type { CustodyKeyAlgorithm } from './key-custody.port';

/** WebCrypto parameters of `ECDSA-P256` (docs/api.md#keys-and-serial-numbers). */
export const ECDSA_P256: webcrypto.EcKeyImportParams = { name: 'ECDSA', namedCurve: 'P-256' };
export const ECDSA_P256_ALGORITHM: CustodyKeyAlgorithm = 'ECDSA-P256';
