import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { ErrorCode } from '@ca/contracts';
import { CryptoKey, JWK, SignJWT, exportJWK, exportSPKI, generateKeyPair } from 'jose';
import { TokenVerifier } from './token-verifier';

const tenantId = randomUUID();

async function tokenOf(privateKey: CryptoKey, exp: number, kid?: string): Promise<string> {
  return new SignJWT({ tenantId, scope: 'certificates:write' })
    .setProtectedHeader({ alg: 'ES256', ...(kid ? { kid } : {}) })
    .setSubject('admin')
    .setExpirationTime(exp)
    .sign(privateKey);
}

const inSeconds = (s: number) => Math.floor(Date.now() / 1000) + s;

describe('TokenVerifier, verifying a token once until its exp', () => {
  it('answers a token again with the same principal, unaffected by what a caller did to the first answer', async () => {
    const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
    const verifier = await TokenVerifier.create({ publicKeyPem: await exportSPKI(publicKey) });
    const token = await tokenOf(privateKey, inSeconds(3600));
    const first = await verifier.verify(token);
    first.scopes.push('ca:admin');
    await expect(verifier.verify(token)).resolves.toEqual({
      tenantId,
      subject: 'admin',
      scopes: ['certificates:write'],
    });
  });

  it('refuses a token it accepted once as expired from its exp on (no clock skew)', async () => {
    const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
    const verifier = await TokenVerifier.create({
      publicKeyPem: await exportSPKI(publicKey),
      clockSkewSeconds: 0,
    });
    const exp = inSeconds(1);
    const token = await tokenOf(privateKey, exp);
    await expect(verifier.verify(token)).resolves.toMatchObject({ tenantId });
    await new Promise((resolve) => setTimeout(resolve, exp * 1000 - Date.now() + 50));
    await expect(verifier.verify(token)).rejects.toMatchObject({ code: ErrorCode.ExpiredToken });
  });

  it('refuses a kept token once its key left the JWKS, when jose would refetch the set (not before)', async () => {
    const signing = await generateKeyPair('ES256', { extractable: true });
    const other = await generateKeyPair('ES256', { extractable: true });
    const jwk = async (key: CryptoKey, kid: string): Promise<JWK> => ({
      ...(await exportJWK(key)),
      kid,
      alg: 'ES256',
    });
    let keys = [await jwk(signing.publicKey, 'old')];
    const server: Server = createServer((_, res) => res.end(JSON.stringify({ keys })));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    jest.useFakeTimers({
      now: Date.now(),
      doNotFake: [
        'nextTick',
        'setImmediate',
        'setTimeout',
        'clearTimeout',
        'setInterval',
        'clearInterval',
        'queueMicrotask',
        'hrtime',
        'performance',
      ],
    });
    try {
      const { port } = server.address() as AddressInfo;
      const verifier = await TokenVerifier.create({ jwksUri: `http://127.0.0.1:${port}/jwks.json` });
      const token = await tokenOf(signing.privateKey, inSeconds(3600), 'old');
      await expect(verifier.verify(token)).resolves.toMatchObject({ tenantId });

      keys = [await jwk(other.publicKey, 'new')]; // the signing key is withdrawn
      jest.setSystemTime(Date.now() + 60_000); // jose keeps its copy of the set for 10 minutes
      await expect(verifier.verify(token)).resolves.toMatchObject({ tenantId });
      jest.setSystemTime(Date.now() + 10 * 60_000);
      await expect(verifier.verify(token)).rejects.toMatchObject({ code: ErrorCode.InvalidToken });
    } finally {
      jest.useRealTimers();
      server.close();
    }
  });
});

describe('TokenVerifier, token times and sub', () => {
  const now = () => Math.floor(Date.now() / 1000);
  let privateKey: CryptoKey;
  let publicKeyPem: string;

  beforeAll(async () => {
    const pair = await generateKeyPair('ES256', { extractable: true });
    privateKey = pair.privateKey;
    publicKeyPem = await exportSPKI(pair.publicKey);
  });

  const sign = (claims: { iat?: number; exp: number; nbf?: number; sub?: string }) => {
    let jwt = new SignJWT({ tenantId, scope: 'certificates:read' })
      .setProtectedHeader({ alg: 'ES256' })
      .setSubject(claims.sub ?? 'admin')
      .setExpirationTime(claims.exp);
    if (claims.iat !== undefined) jwt = jwt.setIssuedAt(claims.iat);
    if (claims.nbf !== undefined) jwt = jwt.setNotBefore(claims.nbf);
    return jwt.sign(privateKey);
  };

  it('refuses a token valid for longer than the maximum lifetime (exp - iat), accepts one within it', async () => {
    const verifier = await TokenVerifier.create({ publicKeyPem, maxLifetimeSeconds: 3600 });
    await expect(verifier.verify(await sign({ iat: now(), exp: now() + 3601 }))).rejects.toMatchObject({
      code: ErrorCode.InvalidToken,
    });
    await expect(verifier.verify(await sign({ iat: now(), exp: now() + 3600 }))).resolves.toMatchObject({
      tenantId,
    });
  });

  it('refuses a token for years by default (24 h), whether or not it has an iat (exp - now)', async () => {
    const verifier = await TokenVerifier.create({ publicKeyPem });
    const years = now() + 5 * 365 * 24 * 3600;
    await expect(verifier.verify(await sign({ iat: now(), exp: years }))).rejects.toMatchObject({
      code: ErrorCode.InvalidToken,
    });
    await expect(verifier.verify(await sign({ exp: years }))).rejects.toMatchObject({
      code: ErrorCode.InvalidToken,
    });
    await expect(verifier.verify(await sign({ exp: now() + 23 * 3600 }))).resolves.toMatchObject({
      tenantId,
    });
  });

  it('applies the clock skew to exp, nbf and iat', async () => {
    const verifier = await TokenVerifier.create({ publicKeyPem, clockSkewSeconds: 60 });
    await expect(verifier.verify(await sign({ iat: now() - 300, exp: now() - 30 }))).resolves.toMatchObject({
      tenantId,
    });
    await expect(verifier.verify(await sign({ iat: now() - 300, exp: now() - 90 }))).rejects.toMatchObject({
      code: ErrorCode.ExpiredToken,
    });
    await expect(verifier.verify(await sign({ nbf: now() + 30, exp: now() + 600 }))).resolves.toMatchObject({
      tenantId,
    });
    await expect(verifier.verify(await sign({ nbf: now() + 120, exp: now() + 600 }))).rejects.toMatchObject({
      code: ErrorCode.InvalidToken,
    });
    await expect(verifier.verify(await sign({ iat: now() + 30, exp: now() + 600 }))).resolves.toMatchObject({
      tenantId,
    });
    await expect(verifier.verify(await sign({ iat: now() + 120, exp: now() + 600 }))).rejects.toMatchObject({
      code: ErrorCode.InvalidToken,
    });
  });

  it('keeps a verified token exactly as long as verification would accept it (exp plus skew)', async () => {
    const verifier = await TokenVerifier.create({ publicKeyPem, clockSkewSeconds: 1 });
    const exp = now() + 1;
    const token = await sign({ iat: now(), exp });
    await expect(verifier.verify(token)).resolves.toMatchObject({ tenantId });
    await new Promise((resolve) => setTimeout(resolve, exp * 1000 - Date.now() + 300));
    await expect(verifier.verify(token)).resolves.toMatchObject({ tenantId });
    await new Promise((resolve) => setTimeout(resolve, (exp + 1) * 1000 - Date.now() + 50));
    await expect(verifier.verify(token)).rejects.toMatchObject({ code: ErrorCode.ExpiredToken });
  });

  it.each([
    ['NUL', 'ad\u0000min'],
    ['a lone surrogate', 'admin\ud83d'],
    ['a control character', 'admin\u001b[2J'],
  ])('refuses a sub with %s as invalid_token', async (_name, sub) => {
    const verifier = await TokenVerifier.create({ publicKeyPem });
    await expect(verifier.verify(await sign({ exp: now() + 60, sub }))).rejects.toMatchObject({
      code: ErrorCode.InvalidToken,
    });
  });

  it('accepts a sub of odd but valid text (emoji, CJK, RTL)', async () => {
    const verifier = await TokenVerifier.create({ publicKeyPem });
    const sub = 'ops 🔐 認証 שלום';
    await expect(verifier.verify(await sign({ exp: now() + 60, sub }))).resolves.toMatchObject({
      subject: sub,
    });
  });
});
