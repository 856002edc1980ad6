import { randomBytes } from 'node:crypto';
import { FlattenedSign, exportJWK, generateKeyPair } from 'jose';
import { EabKey } from '../eab/eab-keys';
import { AcmeProblem } from './acme-problem';
import { verifyExternalAccountBinding } from './eab-binding';

const NEW_ACCOUNT = 'https://ca.test/acme/tenant-a/new-account';

describe('External Account Binding (RFC 8555 7.3.4)', () => {
  const hmacKey = randomBytes(32);
  const key: EabKey = { keyId: 'kid-1', tenantId: 'tenant-a', hmacKey, disabled: false };

  async function setup(overrides: { header?: object; boundJwk?: object; mac?: Buffer } = {}) {
    const { publicKey } = await generateKeyPair('ES256');
    const accountJwk = await exportJWK(publicKey);
    const binding = await new FlattenedSign(
      new TextEncoder().encode(JSON.stringify(overrides.boundJwk ?? accountJwk)),
    )
      .setProtectedHeader({ alg: 'HS256', kid: 'kid-1', url: NEW_ACCOUNT, ...overrides.header } as never)
      .sign(overrides.mac ?? hmacKey);
    return { accountJwk, binding };
  }

  const verify = (binding: unknown, accountJwk: object, found: EabKey | null = key, tenantId = 'tenant-a') =>
    verifyExternalAccountBinding(binding, {
      tenantId,
      newAccountUrl: NEW_ACCOUNT,
      accountJwk,
      findKey: async () => found ?? undefined,
    });

  const typeOf = async (promise: Promise<unknown>) => {
    try {
      await promise;
    } catch (error) {
      return error instanceof AcmeProblem ? `${error.type} ${error.detail}` : 'other';
    }
    return 'accepted';
  };

  it('accepts a binding MAC ed with the key, for this account key and URL', async () => {
    const { accountJwk, binding } = await setup();
    await expect(verify(binding, accountJwk)).resolves.toBe(key);
  });

  it('requires a binding', async () => {
    const { accountJwk } = await setup();
    expect(await typeOf(verify(undefined, accountJwk))).toMatch(/^externalAccountRequired/);
  });

  it("refuses another tenant's key, a disabled or bound one, and a wrong MAC", async () => {
    const { accountJwk, binding } = await setup();
    expect(await typeOf(verify(binding, accountJwk, key, 'tenant-b'))).toMatch(/^unauthorized unknown/);
    expect(await typeOf(verify(binding, accountJwk, { ...key, disabled: true }))).toMatch(
      /^unauthorized .*disabled/,
    );
    expect(await typeOf(verify(binding, accountJwk, { ...key, boundAccountId: 'x' }))).toMatch(
      /^unauthorized .*bound/,
    );
    expect(await typeOf(verify(binding, accountJwk, null))).toMatch(/^unauthorized unknown/);
    expect(await typeOf(verify(binding, accountJwk, { ...key, hmacKey: undefined }))).toMatch(
      /^unauthorized .*cannot be used/,
    );
    const forged = await setup({ mac: randomBytes(32) });
    expect(await typeOf(verify(forged.binding, forged.accountJwk))).toMatch(/^unauthorized .*MAC/);
  });

  it('refuses a binding for another account key or another URL', async () => {
    const { publicKey } = await generateKeyPair('ES256');
    const other = await setup({ boundJwk: await exportJWK(publicKey) });
    expect(await typeOf(verify(other.binding, other.accountJwk))).toMatch(
      /^unauthorized .*another account key/,
    );
    const wrongUrl = await setup({ header: { url: 'https://ca.test/acme/tenant-a/new-order' } });
    expect(await typeOf(verify(wrongUrl.binding, wrongUrl.accountJwk))).toMatch(/^unauthorized .*url/);
  });
});
