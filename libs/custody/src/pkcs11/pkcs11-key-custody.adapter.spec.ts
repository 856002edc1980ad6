import * as graphene from 'graphene-pk11';
import { KeyCustodyError } from '../key-custody.error';
import type { CustodiedKey } from '../key-custody.port';
import {
  createSoftHsmToken,
  describeIfSoftHsm,
  describeKeyCustodyContract,
  type SoftHsmToken,
} from '../testing';
import { Pkcs11KeyCustody } from './pkcs11-key-custody.adapter';
import { decodeTokenReference } from './token-key-reference';

/** The same behaviour as the local backend, on a fresh SoftHSM2 token (about 1 s). */
describeIfSoftHsm('Pkcs11KeyCustody on SoftHSM2', () => {
  let token: SoftHsmToken;
  let custody: Pkcs11KeyCustody;
  const ctx = { tenantId: '6f1c2c52-5a4b-4f3e-9d59-1f6a0e2b7c11', keyId: 'ca-key-1' };
  let key: CustodiedKey;

  beforeAll(async () => {
    token = createSoftHsmToken();
    custody = new Pkcs11KeyCustody(token);
    key = (await custody.generateSigningKey(ctx)).key;
  });
  afterAll(() => {
    custody?.close();
    token?.remove();
  });

  describeKeyCustodyContract('pkcs11', () => custody);

  /** The private key object as the token holds it, found by the stored reference. */
  function tokenPrivateKey(): graphene.PrivateKey {
    const session = (custody as unknown as { token: { session: graphene.Session } }).token.session;
    const found = session.find({
      class: graphene.ObjectClass.PRIVATE_KEY,
      id: decodeTokenReference(key.wrapped),
    });
    expect(found.length).toBe(1);
    return found.items(0).toType<graphene.PrivateKey>();
  }

  it('signs many messages at once (concurrent requests share one session)', async () => {
    const { privateKey, crypto, publicKey } = await custody.openSigningKey(ctx, key);
    const ecdsa = { name: 'ECDSA', hash: 'SHA-256' };
    const messages = Array.from({ length: 24 }, (_, i) => new TextEncoder().encode(`message ${i}`));
    const signatures = await Promise.all(messages.map((m) => crypto.subtle.sign(ecdsa, privateKey, m)));
    const verified = await Promise.all(
      signatures.map((signature, i) =>
        globalThis.crypto.subtle.verify(ecdsa, publicKey, signature, messages[i]),
      ),
    );
    expect(verified.every(Boolean)).toBe(true);
  });

  it('stores a reference to the token, not key material', () => {
    expect(key.wrapped[0]).toBe(0x81);
    expect(key.wrapped.length).toBeLessThan(40); // a PKCS#8 P-256 key is 138 octets
  });

  it('keeps the key in the token as a sensitive, non-extractable token object bound to its owner', () => {
    const privateKey = tokenPrivateKey();
    expect(privateKey.token).toBe(true);
    expect(privateKey.get('sensitive')).toBe(true);
    expect(privateKey.get('extractable')).toBe(false);
    expect(privateKey.get('neverExtractable')).toBe(true);
    expect(privateKey.label).toBe(`ca-manager/${ctx.tenantId}/${ctx.keyId}`);
  });

  it('refuses to export the private key: the token will not reveal CKA_VALUE nor wrap it', async () => {
    const privateKey = tokenPrivateKey();
    expect(() => privateKey.getAttribute({ value: null })).toThrow(/CKR_ATTRIBUTE_SENSITIVE/);
    const session = (custody as unknown as { token: { session: graphene.Session } }).token.session;
    const wrapping = session.generateKey(graphene.KeyGenMechanism.AES, {
      keyType: graphene.KeyType.AES,
      valueLen: 32,
      wrap: true,
      token: false,
    });
    expect(() => session.wrapKey(graphene.MechanismEnum.AES_KEY_WRAP_PAD, wrapping, privateKey)).toThrow(
      /CKR_KEY_UNEXTRACTABLE|CKR_KEY_NOT_WRAPPABLE/,
    );
    const { privateKey: opened, crypto } = await custody.openSigningKey(ctx, key);
    await expect(crypto.subtle.exportKey('pkcs8', opened)).rejects.toThrow();
  });

  it('refuses a reference copied to another CA id of the same tenant', async () => {
    const otherCa = { ...ctx, keyId: 'ca-key-2' };
    await expect(custody.openSigningKey(otherCa, { ...key, keyId: otherCa.keyId })).rejects.toThrow(
      'Cannot open key ca-key-2 of tenant 6f1c2c52-5a4b-4f3e-9d59-1f6a0e2b7c11: the token key belongs to another tenant or key',
    );
  });

  it('refuses a locally wrapped key with a clear message', async () => {
    await expect(
      custody.openSigningKey(ctx, { ...key, wrapped: Uint8Array.of(1, 2, 3) }),
    ).rejects.toMatchObject({
      failure: 'unsupported-key',
    });
  });

  it('deletes the token objects on destroy, after which the key does not open', async () => {
    const { key: doomed } = await custody.generateSigningKey(ctx);
    await custody.destroySigningKey(ctx, doomed);
    await expect(custody.openSigningKey(ctx, doomed)).rejects.toThrow(/it is not in the token/);
  });

  it('names PKCS11_TOKEN_LABEL when no token has that label, and lists those found', () => {
    const attempt = () => new Pkcs11KeyCustody({ ...token, tokenLabel: 'no-such-token' });
    expect(attempt).toThrow(KeyCustodyError);
    expect(attempt).toThrow(
      /^PKCS11_TOKEN_LABEL: no token labelled "no-such-token" \(found "ca-manager-test"\)$/,
    );
  });

  it('names PKCS11_LIBRARY when the module does not load', () => {
    expect(() => new Pkcs11KeyCustody({ ...token, library: '/nonexistent/libpkcs11.so' })).toThrow(
      /^PKCS11_LIBRARY: cannot load the PKCS#11 module \/nonexistent\/libpkcs11.so/,
    );
  });
});
