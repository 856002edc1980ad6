import type { webcrypto } from 'node:crypto';

/** The key pair a certificate is built for: `publicKey` goes into it, `privateKey` signs it. */
export interface SigningKeys {
  publicKey: webcrypto.CryptoKey;
  /** May be non-extractable: it is only used through WebCrypto `sign`. */
  privateKey: webcrypto.CryptoKey;
}
