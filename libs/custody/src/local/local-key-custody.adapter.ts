import type { webcrypto } from 'node:crypto';

import { type CustodyKeyParams, custodyKeyParams, DEFAULT_CUSTODY_KEY_ALGORITHM } from '../key-algorithms';
import { KeyCustodyError } from '../key-custody.error';
import {
  type CustodiedKey,
  type CustodyKeyAlgorithm,
  type CustodyKeyContext,
  KeyCustody,
  type OpenedSigningKey,
} from '../key-custody.port';
import { unwrapPrivateKey, WRAPPED_KEY_VERSION, wrappedKeyVersion, wrapPrivateKey } from './aes-gcm-key-wrap';
import { checkStoredKey, importStoredPublicKey, keyName, newKeyParams } from '../custody-checks';
import { associatedData } from './associated-data';

const KEK_OCTETS = 32;

/**
 * `KEY_CUSTODY=local`: envelope encryption. Each private key is stored wrapped with AES-256-GCM
 * under one key-encryption key (CA_KEK), bound to its tenant and key id, and opened as a
 * non-extractable WebCrypto key only when something is to be signed.
 */
export class LocalKeyCustody extends KeyCustody {
  /** Wraps new keys and opens existing ones. */
  private kek: Promise<webcrypto.CryptoKey>;
  /** Only open keys, after `kek` failed: the KEKs of an interrupted rotation (see `kek-files`). */
  private fallbacks: Promise<webcrypto.CryptoKey>[];

  /**
   * @param kek the 32-octet key-encryption key, e.g. from `loadOrCreateLocalKek`
   * @param fallbackKeks older KEKs that may still open keys (never used to wrap)
   */
  constructor(kek: Uint8Array, fallbackKeks: readonly Uint8Array[] = []) {
    super();
    this.kek = importKek(kek);
    this.fallbacks = fallbackKeks.map(importKek);
  }

  /**
   * From now on wraps and opens under `kek` alone: the last step of a KEK rotation in a running
   * process, once every stored key has been re-wrapped under it.
   */
  useKek(kek: Uint8Array): void {
    this.kek = importKek(kek);
    this.fallbacks = [];
  }

  async generateSigningKey(
    ctx: CustodyKeyContext,
    algorithm: CustodyKeyAlgorithm = DEFAULT_CUSTODY_KEY_ALGORITHM,
  ): Promise<{ key: CustodiedKey; publicKey: webcrypto.CryptoKey }> {
    const params = newKeyParams(ctx, algorithm);
    // Extractable only so that `wrapKey` can export it; the object is dropped right after.
    const pair = (await globalThis.crypto.subtle.generateKey(params.generate, true, [
      'sign',
      'verify',
    ])) as webcrypto.CryptoKeyPair;
    const publicKeySpki = new Uint8Array(await globalThis.crypto.subtle.exportKey('spki', pair.publicKey));
    const aad = associatedData(ctx, {
      version: WRAPPED_KEY_VERSION,
      algorithm,
      publicKeySpki,
    });
    const key: CustodiedKey = {
      keyId: ctx.keyId,
      algorithm,
      publicKeySpki,
      wrapped: await wrapPrivateKey(await this.kek, pair.privateKey, aad),
    };
    // Prove the blob opens before anyone stores it and signs with the key.
    await this.openSigningKey(ctx, key);
    return { key, publicKey: pair.publicKey };
  }

  async openSigningKey(ctx: CustodyKeyContext, key: CustodiedKey): Promise<OpenedSigningKey> {
    const { which, params } = checkStoredKey(ctx, key);
    const version = wrappedKeyVersion(key.wrapped);
    const aad = associatedData(ctx, { version, algorithm: key.algorithm, publicKeySpki: key.publicKeySpki });
    try {
      const privateKey = await this.unwrap(key.wrapped, aad, params.import, false);
      const publicKey = await importStoredPublicKey(key, params);
      return { privateKey, publicKey, crypto: globalThis.crypto };
    } catch (error) {
      if (error instanceof KeyCustodyError) throw error;
      // The cause is deliberately dropped: a GCM failure says nothing more, and nothing leaks.
      throw new KeyCustodyError(
        'key-unavailable',
        `Cannot open ${which}: the wrapped key was altered, belongs to another tenant or key, or was wrapped under another CA_KEK`,
      );
    }
  }

  /** Unwraps under the KEK, else under the first fallback KEK that opens it; throws the KEK's error. */
  private async unwrap(
    wrapped: Uint8Array,
    aad: Uint8Array,
    algorithm: CustodyKeyParams['import'],
    extractable: boolean,
  ): Promise<webcrypto.CryptoKey> {
    try {
      return await unwrapPrivateKey(await this.kek, wrapped, aad, algorithm, extractable);
    } catch (error) {
      for (const fallback of this.fallbacks) {
        const opened = await unwrapPrivateKey(await fallback, wrapped, aad, algorithm, extractable).catch(
          () => undefined,
        );
        if (opened) return opened;
      }
      throw error;
    }
  }

  /** The blob in the caller's row is the only copy: checks it is `ctx`'s, then nothing to do. */
  async destroySigningKey(ctx: CustodyKeyContext, key: CustodiedKey): Promise<void> {
    await this.openSigningKey(ctx, key);
  }

  /** Wraps `key` again under `newKek`, for KEK rotation; the key pair, and so the CA, stays the same. */
  async rewrapUnder(
    newKek: LocalKeyCustody,
    ctx: CustodyKeyContext,
    key: CustodiedKey,
  ): Promise<CustodiedKey> {
    await this.openSigningKey(ctx, key); // the same checks and messages as any opening
    const version = wrappedKeyVersion(key.wrapped);
    const aad = associatedData(ctx, { version, algorithm: key.algorithm, publicKeySpki: key.publicKeySpki });
    // Extractable only so that `wrapKey` can export it again inside native code.
    const params = custodyKeyParams(key.algorithm, keyName(ctx));
    const extractable = await this.unwrap(key.wrapped, aad, params.import, true);
    const rewrapped: CustodiedKey = {
      ...key,
      wrapped: await wrapPrivateKey(await newKek.kek, extractable, aad),
    };
    await newKek.openSigningKey(ctx, rewrapped);
    return rewrapped;
  }
}

function importKek(kek: Uint8Array): Promise<webcrypto.CryptoKey> {
  if (kek.length !== KEK_OCTETS) {
    throw new KeyCustodyError('invalid-argument', `The key-encryption key must be ${KEK_OCTETS} bytes`);
  }
  // Imported once, non-extractable, usable only to wrap and unwrap keys.
  return globalThis.crypto.subtle.importKey('raw', Uint8Array.from(kek), 'AES-GCM', false, [
    'wrapKey',
    'unwrapKey',
  ]);
}
