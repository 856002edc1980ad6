import { KeyObject, createPublicKey } from 'node:crypto';
import { CryptoKey, FlattenedSign, JWK, exportJWK, generateKeyPair } from 'jose';
import { HttpAnswer, http } from './http';

/** A hand-made ACME client (jose, fetch) for protocol-level checks that real clients never make. */
export class RawAcmeClient {
  private constructor(
    readonly directoryUrl: string,
    readonly directory: Record<string, string>,
    readonly privateKey: CryptoKey | KeyObject,
    readonly jwk: JWK,
  ) {}

  static async create(directoryUrl: string): Promise<RawAcmeClient> {
    const answer = await http(directoryUrl);
    if (answer.status !== 200) throw new Error(`directory: ${answer.status} ${answer.text}`);
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    return new RawAcmeClient(directoryUrl, answer.json(), privateKey, await exportJWK(publicKey));
  }

  /** The same directory with a new account key (RFC 8555 7.3.5 key roll-over). */
  async withNewKey(): Promise<RawAcmeClient> {
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    return new RawAcmeClient(this.directoryUrl, this.directory, privateKey, await exportJWK(publicKey));
  }

  /** The same directory, signing with a given P-256 key (e.g. a certificate's, RFC 8555 7.6). */
  withKey(privateKey: KeyObject): RawAcmeClient {
    const jwk = createPublicKey(privateKey).export({ format: 'jwk' }) as JWK;
    return new RawAcmeClient(this.directoryUrl, this.directory, privateKey, jwk);
  }

  /** The inner JWS of keyChange: signed by this (new) key, no nonce. */
  async keyChangeInner(accountUrl: string, oldKey: JWK) {
    return new FlattenedSign(new TextEncoder().encode(JSON.stringify({ account: accountUrl, oldKey })))
      .setProtectedHeader({ alg: 'ES256', url: this.directory.keyChange, jwk: this.jwk })
      .sign(this.privateKey);
  }

  async nonce(): Promise<string> {
    const answer = await http(this.directory.newNonce, { method: 'HEAD' });
    return answer.headers.get('replay-nonce')!;
  }

  /** A flattened JWS as RFC 8555 6.2 wants it; every header field can be overridden. */
  async jws(url: string, payload: unknown, header: Record<string, unknown> = {}) {
    const body = payload === '' ? new Uint8Array() : new TextEncoder().encode(JSON.stringify(payload));
    return new FlattenedSign(body)
      .setProtectedHeader({ alg: 'ES256', url, nonce: await this.nonce(), jwk: this.jwk, ...header } as never)
      .sign(this.privateKey);
  }

  post(url: string, jws: unknown): Promise<HttpAnswer> {
    return http(url, {
      method: 'POST',
      headers: { 'content-type': 'application/jose+json' },
      body: JSON.stringify(jws),
    });
  }

  /** The externalAccountBinding member of RFC 8555 7.3.4 for this client's key. */
  async externalAccountBinding(keyId: string, hmacKey: string, url = this.directory.newAccount) {
    return new FlattenedSign(new TextEncoder().encode(JSON.stringify(this.jwk)))
      .setProtectedHeader({ alg: 'HS256', kid: keyId, url })
      .sign(Buffer.from(hmacKey, 'base64url'));
  }
}

/** The ACME error type of a problem answer (`badNonce`, …). */
export const acmeErrorType = (answer: HttpAnswer): string =>
  answer.json<{ type: string }>().type.replace('urn:ietf:params:acme:error:', '');
