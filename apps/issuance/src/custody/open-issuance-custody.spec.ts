import { randomUUID } from 'node:crypto';
import { loadConfig } from '@ca/config';
import { CaRole } from '@ca/contracts';
import { createSoftHsmToken, describeIfSoftHsm, type SoftHsmToken } from '@ca/custody/testing';
import { openIssuanceCustody } from './open-issuance-custody';

/** Issuance's custodies on two SoftHSM2 tokens (PKCS11_ROOT_TOKEN_LABEL), as configured at start. */
// Token logins and key generation run on a shared 2-core machine in CI: seconds, not milliseconds.
jest.setTimeout(60_000);

describeIfSoftHsm('openIssuanceCustody with a root token (SoftHSM2)', () => {
  let mainToken: SoftHsmToken;
  let rootToken: SoftHsmToken;

  beforeAll(() => {
    mainToken = createSoftHsmToken('issuance-main');
    rootToken = createSoftHsmToken('issuance-root', { besides: mainToken });
  });
  afterAll(() => {
    rootToken?.remove();
    mainToken?.remove();
  });

  const configWith = (root: Record<string, string>) =>
    loadConfig({
      KEY_CUSTODY: 'pkcs11',
      PKCS11_LIBRARY: mainToken.library,
      PKCS11_TOKEN_LABEL: mainToken.tokenLabel,
      PKCS11_PIN: mainToken.pin,
      ...root,
    });

  it('makes root keys in the root token and issuing CA keys in the main one', async () => {
    const custodies = await openIssuanceCustody(
      configWith({ PKCS11_ROOT_TOKEN_LABEL: rootToken.tokenLabel, PKCS11_ROOT_PIN: rootToken.pin }),
    );
    try {
      const tenantId = randomUUID();
      const rootCtx = { tenantId, keyId: randomUUID() };
      const { key } = await custodies.forRole(CaRole.Root).generateSigningKey(rootCtx);
      // The main token's custody alone does not find it: it is not there.
      await expect(custodies.main.openSigningKey(rootCtx, key)).rejects.toThrow(/it is not in the token/);
      await expect(custodies.forRole(CaRole.Root).openSigningKey(rootCtx, key)).resolves.toBeDefined();
      await custodies.forRole(CaRole.Root).destroySigningKey(rootCtx, key);
    } finally {
      custodies.close();
    }
  });

  it('names the root settings when the root token is not found or refuses the PIN', async () => {
    await expect(
      openIssuanceCustody(configWith({ PKCS11_ROOT_TOKEN_LABEL: 'no-such-root', PKCS11_ROOT_PIN: '1234' })),
    ).rejects.toThrow(
      // The tokens found, in the module's slot order (which SoftHSM2 does not fix).
      /^PKCS11_ROOT_TOKEN_LABEL: no token labelled "no-such-root" \(found ("issuance-main", "issuance-root"|"issuance-root", "issuance-main")\)$/,
    );
    await expect(
      openIssuanceCustody(
        configWith({ PKCS11_ROOT_TOKEN_LABEL: rootToken.tokenLabel, PKCS11_ROOT_PIN: 'wrong' }),
      ),
    ).rejects.toThrow(/^PKCS11_ROOT_PIN: the token "issuance-root" refused the login \(CKR_PIN_INCORRECT\)$/);
    // The main token was let go on the way out: opening it again logs in afresh.
    const custodies = await openIssuanceCustody(configWith({}));
    custodies.close();
  });
});
