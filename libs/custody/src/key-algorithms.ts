import type { webcrypto } from 'node:crypto';

import { KeyCustodyError } from './key-custody.error';
import type { CustodyKeyAlgorithm } from './key-custody.port';

/** WebCrypto parameters of one key algorithm custody holds (docs/api.md#key-algorithms). */
export interface CustodyKeyParams {
  generate: webcrypto.EcKeyGenParams | webcrypto.RsaHashedKeyGenParams;
  import: webcrypto.EcKeyImportParams | webcrypto.RsaHashedImportParams;
}

const ec = (namedCurve: string): CustodyKeyParams => ({
  generate: { name: 'ECDSA', namedCurve },
  import: { name: 'ECDSA', namedCurve },
});

// RSASSA-PKCS1-v1_5 with SHA-256 (RFC 4055 5), public exponent 65537 (CA/B BR 6.1.6).
const rsa = (modulusLength: number): CustodyKeyParams => ({
  generate: {
    name: 'RSASSA-PKCS1-v1_5',
    modulusLength,
    publicExponent: Uint8Array.of(1, 0, 1),
    hash: 'SHA-256',
  },
  import: { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' },
});

const PARAMS: Record<CustodyKeyAlgorithm, CustodyKeyParams> = {
  'ECDSA-P256': ec('P-256'),
  'ECDSA-P384': ec('P-384'),
  'RSA-2048': rsa(2048),
  'RSA-3072': rsa(3072),
  'RSA-4096': rsa(4096),
};

export const CUSTODY_KEY_ALGORITHMS = Object.keys(PARAMS) as CustodyKeyAlgorithm[];

/** The default of every CA created before key choices existed, and of every new one. */
export const DEFAULT_CUSTODY_KEY_ALGORITHM: CustodyKeyAlgorithm = 'ECDSA-P256';

/** The parameters of `algorithm`; `KeyCustodyError` unsupported-key for a name custody does not hold. */
export function custodyKeyParams(algorithm: string, which: string): CustodyKeyParams {
  const params = (PARAMS as Record<string, CustodyKeyParams | undefined>)[algorithm];
  if (!params) {
    throw new KeyCustodyError(
      'unsupported-key',
      `Cannot open ${which}: algorithm ${algorithm} not supported`,
    );
  }
  return params;
}

/**
 * docs/api.md#key-algorithms names (as the API and `leafKeyAlgorithmOfSpki` of libs/pki give them),
 * as custody names them: the one translation between the two.
 */
export const CUSTODY_ALGORITHM = {
  'P-256': 'ECDSA-P256',
  'P-384': 'ECDSA-P384',
  'RSA-2048': 'RSA-2048',
  'RSA-3072': 'RSA-3072',
  'RSA-4096': 'RSA-4096',
} as const satisfies Record<string, CustodyKeyAlgorithm>;
