import { generateKeyPairSync, sign } from 'node:crypto';
import { FlattenedSign, JWK, exportJWK, generateKeyPair } from 'jose';
import { AcmeProblem } from './acme-problem';
import { parseFlattenedJws, readProtectedHeader, thumbprint, verifyJwsSignature } from './jws-request';

const typeOf = async (fn: () => unknown): Promise<string | undefined> => {
  try {
    await fn();
  } catch (error) {
    return error instanceof AcmeProblem ? error.type : 'other';
  }
  return undefined;
};

async function signed(alg: string, header: Record<string, unknown> = {}, payload = '{}') {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const jwk = await exportJWK(publicKey);
  const jws = await new FlattenedSign(new TextEncoder().encode(payload))
    .setProtectedHeader({ alg, nonce: 'n', url: 'https://ca.test/acme/t/new-order', jwk, ...header } as never)
    .sign(privateKey);
  return { jws, jwk };
}

describe('ACME JWS checks (RFC 8555 6.2)', () => {
  it.each(['ES256', 'ES384', 'RS256', 'EdDSA'])('verifies %s with the key it names', async (alg) => {
    const { jws, jwk } = await signed(alg);
    const parsed = parseFlattenedJws(Buffer.from(JSON.stringify(jws)));
    const header = readProtectedHeader(parsed);
    expect(header).toMatchObject({ alg, nonce: 'n', url: 'https://ca.test/acme/t/new-order' });
    await expect(verifyJwsSignature(parsed, header, jwk)).resolves.toBe('{}');
  });

  it('refuses an RSA key shorter than 2048 bits as badPublicKey, though its signature verifies', async () => {
    // jose will not sign with it: the JWS is made by hand, as a careless client would.
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 1024 });
    const jwk = publicKey.export({ format: 'jwk' }) as JWK;
    const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const prot = b64({ alg: 'RS256', nonce: 'n', url: 'https://ca.test/acme/t/new-account', jwk });
    const payload = b64({});
    const signature = sign('sha256', Buffer.from(`${prot}.${payload}`), privateKey).toString('base64url');
    const parsed = parseFlattenedJws(Buffer.from(JSON.stringify({ protected: prot, payload, signature })));
    expect(await typeOf(() => verifyJwsSignature(parsed, readProtectedHeader(parsed), jwk))).toBe(
      'badPublicKey',
    );
  });

  it('refuses a signature made by another key', async () => {
    const { jws } = await signed('ES256');
    const { jwk: otherKey } = await signed('ES256');
    const parsed = parseFlattenedJws(Buffer.from(JSON.stringify(jws)));
    expect(await typeOf(() => verifyJwsSignature(parsed, readProtectedHeader(parsed), otherKey))).toBe(
      'malformed',
    );
  });

  it('refuses HS256 and none as badSignatureAlgorithm', async () => {
    const header = (h: object) => Buffer.from(JSON.stringify(h)).toString('base64url');
    for (const alg of ['HS256', 'none', 'ES512']) {
      const jws = { protected: header({ alg, nonce: 'n', url: 'u', kid: 'k' }), payload: '', signature: '' };
      expect(await typeOf(() => readProtectedHeader(jws))).toBe('badSignatureAlgorithm');
    }
  });

  it('needs exactly one of jwk and kid, a url, and no private key material', async () => {
    const { jwk } = await signed('ES256');
    const header = (h: object) => ({
      protected: Buffer.from(JSON.stringify(h)).toString('base64url'),
      payload: '',
      signature: '',
    });
    expect(await typeOf(() => readProtectedHeader(header({ alg: 'ES256', url: 'u', jwk, kid: 'k' })))).toBe(
      'malformed',
    );
    expect(await typeOf(() => readProtectedHeader(header({ alg: 'ES256', url: 'u' })))).toBe('malformed');
    expect(await typeOf(() => readProtectedHeader(header({ alg: 'ES256', kid: 'k' })))).toBe('malformed');
    expect(
      await typeOf(() => readProtectedHeader(header({ alg: 'ES256', url: 'u', jwk: { ...jwk, d: 'x' } }))),
    ).toBe('badPublicKey');
  });

  it('accepts only the flattened JSON serialization without an unprotected header', async () => {
    expect(await typeOf(() => parseFlattenedJws(Buffer.from('not json')))).toBe('malformed');
    expect(await typeOf(() => parseFlattenedJws(Buffer.from('a.b.c')))).toBe('malformed');
    const { jws } = await signed('ES256');
    expect(await typeOf(() => parseFlattenedJws(Buffer.from(JSON.stringify({ ...jws, header: {} }))))).toBe(
      'malformed',
    );
  });

  it('gives the RFC 7638 thumbprint of the public members only', async () => {
    const { jwk } = await signed('ES256');
    expect(await thumbprint({ ...jwk, kid: 'ignored', use: 'sig' })).toBe(await thumbprint(jwk));
  });
});
