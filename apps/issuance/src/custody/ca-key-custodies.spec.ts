import { randomBytes, randomUUID } from 'node:crypto';
import { CaRole } from '@ca/contracts';
import { KeyCustodyError, LocalKeyCustody } from '@ca/custody';
import { CaKeyCustodies, type CustodyLog } from './ca-key-custodies';

/**
 * Two local custodies under different KEKs stand in for the main and the root token: a key opens
 * only in the custody that made it, as a token key is only in its token.
 */
describe('CaKeyCustodies', () => {
  const tenantId = randomUUID();
  let main: LocalKeyCustody;
  let rootToken: LocalKeyCustody;
  let lines: { level: 'info' | 'warn'; fields: object; message: string }[];
  let custodies: CaKeyCustodies;

  beforeEach(() => {
    main = new LocalKeyCustody(randomBytes(32));
    rootToken = new LocalKeyCustody(randomBytes(32));
    lines = [];
    const log: CustodyLog = {
      info: (fields, message) => void lines.push({ level: 'info', fields, message }),
      warn: (fields, message) => void lines.push({ level: 'warn', fields, message }),
    };
    custodies = new CaKeyCustodies(main, rootToken, log);
  });

  const ctx = () => ({ tenantId, keyId: randomUUID() });

  it('makes root keys in the root token and issuing CA keys in the main one', async () => {
    const rootCtx = ctx();
    const { key: rootKey } = await custodies.forRole(CaRole.Root).generateSigningKey(rootCtx);
    await expect(rootToken.openSigningKey(rootCtx, rootKey)).resolves.toBeDefined();
    await expect(main.openSigningKey(rootCtx, rootKey)).rejects.toThrow(KeyCustodyError);

    const issuingCtx = ctx();
    expect(custodies.forRole(CaRole.Issuing)).toBe(main);
    const { key: issuingKey } = await custodies.forRole(CaRole.Issuing).generateSigningKey(issuingCtx);
    await expect(main.openSigningKey(issuingCtx, issuingKey)).resolves.toBeDefined();
    await expect(rootToken.openSigningKey(issuingCtx, issuingKey)).rejects.toThrow(KeyCustodyError);
  });

  it('opens a root key made in the main token before the root token was set up, and says so once', async () => {
    const oldCtx = ctx();
    const { key } = await main.generateSigningKey(oldCtx);
    const root = custodies.forRole(CaRole.Root);
    const opened = await root.openSigningKey(oldCtx, key);
    const message = new TextEncoder().encode('crl');
    const ecdsa = { name: 'ECDSA', hash: 'SHA-256' };
    const signature = await opened.crypto.subtle.sign(ecdsa, opened.privateKey, message);
    expect(await globalThis.crypto.subtle.verify(ecdsa, opened.publicKey, signature, message)).toBe(true);
    await root.openSigningKey(oldCtx, key);
    expect(lines).toEqual([
      {
        level: 'warn',
        fields: { tenantId, caId: oldCtx.keyId },
        message: expect.stringContaining('root CA key opened from the main token'),
      },
    ]);
  });

  it('logs once which token held a root key found in the root token', async () => {
    const newCtx = ctx();
    const { key } = await rootToken.generateSigningKey(newCtx);
    const root = custodies.forRole(CaRole.Root);
    await root.openSigningKey(newCtx, key);
    await root.openSigningKey(newCtx, key);
    expect(lines).toEqual([
      {
        level: 'info',
        fields: { tenantId, caId: newCtx.keyId },
        message: 'root CA key opened from the root token',
      },
    ]);
  });

  it('names both tokens when neither holds the key', async () => {
    const lostCtx = ctx();
    const { key } = await new LocalKeyCustody(randomBytes(32)).generateSigningKey(lostCtx);
    const attempt = custodies.forRole(CaRole.Root).openSigningKey(lostCtx, key);
    await expect(attempt).rejects.toBeInstanceOf(KeyCustodyError);
    await expect(attempt).rejects.toThrow(
      new RegExp(`^Cannot open key ${lostCtx.keyId} of tenant ${tenantId}: root token: .+; main token: .+$`),
    );
  });

  it('is the one custody for both roles without a root token', () => {
    const single = CaKeyCustodies.single(main);
    expect(single.forRole(CaRole.Root)).toBe(main);
    expect(single.forRole(CaRole.Issuing)).toBe(main);
  });
});
