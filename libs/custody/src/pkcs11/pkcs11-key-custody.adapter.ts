import type { webcrypto } from 'node:crypto';
import * as graphene from 'graphene-pk11';
import { CryptoKey as TokenCryptoKey } from 'node-webcrypto-p11';
import { custodyKeyParams, DEFAULT_CUSTODY_KEY_ALGORITHM } from '../key-algorithms';
import { KeyCustodyError } from '../key-custody.error';
import {
  type CustodiedKey,
  type CustodyKeyAlgorithm,
  type CustodyKeyContext,
  KeyCustody,
  type OpenedSigningKey,
} from '../key-custody.port';
import { openPkcs11Token, type Pkcs11TokenOptions, type Pkcs11TokenSession } from './pkcs11-token';
import { checkStoredKey, importStoredPublicKey, keyName, newKeyParams } from '../custody-checks';
import { decodeTokenReference, encodeTokenReference, tokenKeyLabel } from './token-key-reference';

/**
 * `KEY_CUSTODY=pkcs11`: the key pair is generated inside the token as token objects with
 * CKA_SENSITIVE true and CKA_EXTRACTABLE false (PKCS#11 2.40 section 4.9), so the private key
 * never leaves it; signing is C_Sign through node-webcrypto-p11's WebCrypto provider, which is
 * handed out with the key so that pkijs can sign through it. What the caller stores is a
 * reference (the CKA_ID); the CKA_LABEL binds the objects to their tenant and key id.
 */
export class Pkcs11KeyCustody extends KeyCustody {
  private readonly token: Pkcs11TokenSession;

  /** Logs in to the token (once per process); throws `KeyCustodyError` naming the setting at fault. */
  constructor(options: Pkcs11TokenOptions) {
    super();
    this.token = openPkcs11Token(options);
  }

  /** The token's WebCrypto provider (its `subtle` signs with the keys this custody opens). */
  get crypto(): webcrypto.Crypto {
    return this.token.crypto;
  }

  async generateSigningKey(
    ctx: CustodyKeyContext,
    algorithm: CustodyKeyAlgorithm = DEFAULT_CUSTODY_KEY_ALGORITHM,
  ): Promise<{ key: CustodiedKey; publicKey: webcrypto.CryptoKey }> {
    const params = newKeyParams(ctx, algorithm);
    const { id, publicKeySpki } = await this.token.exclusive(async () => {
      const subtle = this.token.rawCrypto.subtle;
      const pair = (await subtle.generateKey(
        {
          ...params.generate,
          token: true,
          sensitive: true,
          label: tokenKeyLabel(ctx),
        } as unknown as webcrypto.EcKeyGenParams,
        false,
        ['sign', 'verify'],
      )) as webcrypto.CryptoKeyPair;
      return {
        id: (pair.privateKey as unknown as TokenCryptoKey).p11Object.id,
        publicKeySpki: new Uint8Array(await subtle.exportKey('spki', pair.publicKey as never)),
      };
    });
    const key: CustodiedKey = {
      keyId: ctx.keyId,
      algorithm,
      publicKeySpki,
      wrapped: encodeTokenReference(id),
    };
    const opened = await this.openSigningKey(ctx, key); // proves the objects are as required
    return { key, publicKey: opened.publicKey };
  }

  async openSigningKey(ctx: CustodyKeyContext, key: CustodiedKey): Promise<OpenedSigningKey> {
    const privateKey = await this.token.exclusive(() => this.openOwnedPrivateKey(ctx, key));
    const publicKey = await importStoredPublicKey(key, custodyKeyParams(key.algorithm, keyName(ctx)));
    return { privateKey: privateKey as unknown as webcrypto.CryptoKey, publicKey, crypto: this.crypto };
  }

  /** C_DestroyObject on both halves; a key already gone is not an error. */
  async destroySigningKey(ctx: CustodyKeyContext, key: CustodiedKey): Promise<void> {
    await this.token.exclusive(() => {
      for (const object of this.findObjects(ctx, key)) object.destroy();
    });
  }

  /** Logs out when no other custody of this process uses the token. */
  override close(): void {
    this.token.release();
  }

  /** The token's private key of `key`, after every check; run inside `exclusive`. */
  private async openOwnedPrivateKey(ctx: CustodyKeyContext, key: CustodiedKey): Promise<TokenCryptoKey> {
    const { privateObject, publicObject } = this.findOwnedPair(ctx, key);
    const which = keyName(ctx);
    const secret = privateObject.toType<graphene.PrivateKey>();
    if (secret.get('sensitive') !== true || secret.get('extractable') !== false) {
      throw new KeyCustodyError('key-unavailable', `Cannot open ${which}: the token key is exportable`);
    }
    const crypto = this.token.rawCrypto;
    const { import: params } = custodyKeyParams(key.algorithm, which);
    const tokenSpki = await crypto.keyStorage
      .getItem(TokenCryptoKey.getID(publicObject.toType<graphene.Key>()), params, true, ['verify'])
      .then(async (tokenPublic) => Buffer.from(await crypto.subtle.exportKey('spki', tokenPublic)))
      .catch(() => {
        // The token reads the object as another kind of key than the stored algorithm says.
        throw new KeyCustodyError(
          'key-unavailable',
          `Cannot open ${which}: the token key is not ${key.algorithm}`,
        );
      });
    if (!tokenSpki.equals(Buffer.from(key.publicKeySpki))) {
      throw new KeyCustodyError(
        'key-unavailable',
        `Cannot open ${which}: the stored public key is not the token's`,
      );
    }
    return crypto.keyStorage.getItem(
      TokenCryptoKey.getID(privateObject.toType<graphene.Key>()),
      params,
      false,
      ['sign'],
    );
  }

  private findOwnedPair(
    ctx: CustodyKeyContext,
    key: CustodiedKey,
  ): { privateObject: graphene.SessionObject; publicObject: graphene.SessionObject } {
    const objects = this.findObjects(ctx, key);
    const privateObject = objects.find((o) => o.class === graphene.ObjectClass.PRIVATE_KEY);
    const publicObject = objects.find((o) => o.class === graphene.ObjectClass.PUBLIC_KEY);
    if (!privateObject || !publicObject) {
      throw new KeyCustodyError(
        'key-unavailable',
        `Cannot open ${keyName(ctx)}: it is not in the token (destroyed, or another token)`,
      );
    }
    return { privateObject, publicObject };
  }

  /** The token objects `key` refers to, after checking they belong to `ctx`. */
  private findObjects(ctx: CustodyKeyContext, key: CustodiedKey): graphene.SessionObject[] {
    const { which } = checkStoredKey(ctx, key);
    const id = decodeTokenReference(key.wrapped);
    const objects: graphene.SessionObject[] = [];
    this.token.session.find({ id, token: true }, (object) => {
      objects.push(object);
    });
    const label = tokenKeyLabel(ctx);
    if (objects.some((object) => object.toType<graphene.Storage>().label !== label)) {
      throw new KeyCustodyError(
        'key-unavailable',
        `Cannot open ${which}: the token key belongs to another tenant or key`,
      );
    }
    return objects;
  }
}
