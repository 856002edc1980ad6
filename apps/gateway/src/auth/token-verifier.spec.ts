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

  it('refuses a token it accepted once as expired from its exp on', async () => {
    const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
    const verifier = await TokenVerifier.create({ publicKeyPem: await exportSPKI(publicKey) });
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
