import { CaSummary, IssuanceApi, KeyAlgorithm } from '@ca/contracts';
import { RpcClient } from '@ca/messaging';
import { LeafKeyAlgorithms } from './leaf-key-algorithm';

const command = { tenantId: '6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b', principal: 'svc' };
const ca = (role: 'root' | 'issuing', keyAlgorithm: KeyAlgorithm, state: CaSummary['state']) =>
  ({ role, keyAlgorithm, state }) as CaSummary;

describe('LeafKeyAlgorithms', () => {
  let cas: CaSummary[];
  let clock: number;
  let asked: number;
  let algorithms: LeafKeyAlgorithms;
  const issuanceStub = () =>
    ({
      send: async () => {
        asked++;
        return { cas };
      },
    }) as unknown as RpcClient<IssuanceApi>;
  beforeEach(() => {
    clock = 0;
    asked = 0;
    algorithms = new LeafKeyAlgorithms(issuanceStub(), () => clock);
  });

  it('follows the active issuing CA, not a retired one', async () => {
    cas = [
      ca('root', KeyAlgorithm.P256, 'active'),
      ca('issuing', KeyAlgorithm.P256, 'retired'),
      ca('issuing', KeyAlgorithm.Rsa3072, 'active'),
    ];
    expect(await algorithms.choose(undefined, command)).toBe(KeyAlgorithm.Rsa3072);
  });

  it('follows the active root when the root signs leaves', async () => {
    cas = [ca('root', KeyAlgorithm.Rsa4096, 'retired'), ca('root', KeyAlgorithm.P384, 'active')];
    expect(await algorithms.choose(undefined, command)).toBe(KeyAlgorithm.P256);
    cas = [ca('root', KeyAlgorithm.Rsa4096, 'active')];
    clock += 61_000;
    expect(await algorithms.choose(undefined, command)).toBe(KeyAlgorithm.Rsa3072);
  });

  it('keeps an answer for a minute, then asks again (a rollover may change the family)', async () => {
    cas = [ca('root', KeyAlgorithm.P256, 'active'), ca('issuing', KeyAlgorithm.P256, 'active')];
    expect(await algorithms.choose(undefined, command)).toBe(KeyAlgorithm.P256);
    cas = [ca('root', KeyAlgorithm.P256, 'active'), ca('issuing', KeyAlgorithm.Rsa3072, 'active')];
    clock += 30_000;
    expect(await algorithms.choose(undefined, command)).toBe(KeyAlgorithm.P256);
    clock += 31_000;
    expect(await algorithms.choose(undefined, command)).toBe(KeyAlgorithm.Rsa3072);
    expect(asked).toBe(2);
  });

  it('takes the requested algorithm without asking', async () => {
    cas = [];
    expect(await algorithms.choose(KeyAlgorithm.P384, command)).toBe(KeyAlgorithm.P384);
    expect(asked).toBe(0);
  });

  it('refuses a requested RSA-2048 unless it is the deployment key algorithm', async () => {
    await expect(algorithms.choose(KeyAlgorithm.Rsa2048, command)).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      errors: [expect.objectContaining({ field: 'keyAlgorithm' })],
    });
    const rsa2048 = new LeafKeyAlgorithms(issuanceStub(), () => clock, KeyAlgorithm.Rsa2048);
    expect(await rsa2048.choose(KeyAlgorithm.Rsa2048, command)).toBe(KeyAlgorithm.Rsa2048);
  });

  it('v1 keys: P-256 without asking in the default deployment', async () => {
    cas = [ca('root', KeyAlgorithm.Rsa3072, 'active')];
    expect(await algorithms.chooseV1(command)).toBe(KeyAlgorithm.P256);
    expect(asked).toBe(0);
  });

  it("v1 keys in a deployment that chose RSA-2048: the tenant CA's default, RSA-2048 under an RSA-2048 CA", async () => {
    const rsa2048 = new LeafKeyAlgorithms(issuanceStub(), () => clock, KeyAlgorithm.Rsa2048);
    cas = [ca('root', KeyAlgorithm.Rsa2048, 'active')];
    expect(await rsa2048.chooseV1(command)).toBe(KeyAlgorithm.Rsa2048);
    expect(await rsa2048.choose(undefined, { ...command, tenantId: 'other' })).toBe(KeyAlgorithm.Rsa2048);
    // A tenant that asked for P-256 explicitly keeps P-256 leaves.
    cas = [ca('root', KeyAlgorithm.P256, 'active')];
    expect(await rsa2048.chooseV1({ ...command, tenantId: 'p256' })).toBe(KeyAlgorithm.P256);
  });
});
