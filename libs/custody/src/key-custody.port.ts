import type { webcrypto } from 'node:crypto';

/** Who a key belongs to. Bound into the custody of the key, so a key opens only for its owner. */
export interface CustodyKeyContext {
  tenantId: string;
  keyId: string;
}

export type CustodyKeyAlgorithm = 'ECDSA-P256';

/** What the owner stores for a key: its public half in the clear, the rest as an opaque blob. */
export interface CustodiedKey {
  keyId: string;
  algorithm: CustodyKeyAlgorithm;
  /** DER SubjectPublicKeyInfo (RFC 5280 4.1.2.7). */
  publicKeySpki: Uint8Array;
  /** Opaque to the caller: the encrypted private key (local) or a token reference (PKCS#11). */
  wrapped: Uint8Array;
}

/**
 * Custody of signing keys (CONTRACT section 2, KEY_CUSTODY): the private key is created inside the
 * custody and only ever handed out as a non-extractable WebCrypto key, usable for `sign` alone.
 * An abstract class so that it can be the dependency-injection token; one adapter per backend.
 */
export abstract class KeyCustody {
  /** Creates a key for `ctx`; the caller stores the returned `key` and may discard `publicKey`. */
  abstract generateSigningKey(
    ctx: CustodyKeyContext,
  ): Promise<{ key: CustodiedKey; publicKey: webcrypto.CryptoKey }>;

  /**
   * Opens a stored key for signing. The private key is non-extractable. Throws `KeyCustodyError`
   * when the key was not made for `ctx`, was altered, or this custody cannot open it.
   */
  abstract openSigningKey(
    ctx: CustodyKeyContext,
    key: CustodiedKey,
  ): Promise<{ privateKey: webcrypto.CryptoKey; publicKey: webcrypto.CryptoKey }>;
}
