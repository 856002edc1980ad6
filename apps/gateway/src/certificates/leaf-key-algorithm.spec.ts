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
  beforeEach(() => {
    clock = 0;
    asked = 0;
    const issuance = {
      send: async () => {
        asked++;
        return { cas };
      },
    } as unknown as RpcClient<IssuanceApi>;
    algorithms = new LeafKeyAlgorithms(issuance, () => clock);
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
});
