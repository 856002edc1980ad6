import type { webcrypto } from 'node:crypto';

/** Who a key belongs to. Bound into the custody of the key, so a key opens only for its owner. */
export interface CustodyKeyContext {
  tenantId: string;
  keyId: string;
}

/** RSA-2048 only for a deployment that chose it (KEY_ALGORITHM, docs/api.md#key-algorithms). */
export type CustodyKeyAlgorithm = 'ECDSA-P256' | 'ECDSA-P384' | 'RSA-2048' | 'RSA-3072' | 'RSA-4096';

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
 * An opened key. `privateKey` belongs to `crypto`, the WebCrypto provider that can sign with it:
 * Node's own for `local`, the token's for `pkcs11` (pkijs must be given an engine built on it).
 * `publicKey` is always a Node WebCrypto key, imported from the stored SPKI.
 */
export interface OpenedSigningKey {
  privateKey: webcrypto.CryptoKey;
  publicKey: webcrypto.CryptoKey;
  crypto: webcrypto.Crypto;
}

/**
 * Custody of signing keys (docs/api.md#configuration, KEY_CUSTODY): the private key is created inside the
 * custody and only ever handed out as a non-extractable WebCrypto key, usable for `sign` alone.
 * An abstract class so that it can be the dependency-injection token; one adapter per backend.
 */
export abstract class KeyCustody {
  /**
   * Creates a key of `algorithm` (ECDSA-P256 when absent) for `ctx`; the caller stores the
   * returned `key` and may discard `publicKey`.
   */
  abstract generateSigningKey(
    ctx: CustodyKeyContext,
    algorithm?: CustodyKeyAlgorithm,
  ): Promise<{ key: CustodiedKey; publicKey: webcrypto.CryptoKey }>;

  /**
   * Opens a stored key for signing. The private key is non-extractable. Throws `KeyCustodyError`
   * when the key was not made for `ctx`, was altered, or this custody cannot open it.
   */
  abstract openSigningKey(ctx: CustodyKeyContext, key: CustodiedKey): Promise<OpenedSigningKey>;

  /**
   * Destroys the private key of `key`, for good: `pkcs11` deletes the token objects; `local` has
   * nothing outside the stored blob, so deleting the caller's row is what destroys it there.
   * Refuses (`KeyCustodyError`) a key that was not made for `ctx`.
   */
  abstract destroySigningKey(ctx: CustodyKeyContext, key: CustodiedKey): Promise<void>;

  /** Releases what the custody holds open (a token session); nothing for `local`. */
  close(): void {
    // nothing to release by default
  }
}
