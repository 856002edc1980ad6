import { CaError, IssuanceApi } from '@ca/contracts';
import { RpcClient } from '@ca/messaging';
import { AcmeProfileStore } from '../stores/acme-profile.store';
import { AcmeProfiles, checkedProfile } from './acme-profiles';

const TENANT = '5f0c6f5e-8f0a-4d3c-9b1e-2a3b4c5d6e7f';
const profile = { name: 'week', description: 'Seven days', validityDays: 7, usage: 'Server' };

/** Profiles against a policy; the database is never reached when the policy refuses. */
function profilesUnder(allowedUsages: string[] | null) {
  const issuance = { send: async () => ({ allowedDnsSuffixes: null, allowedUsages }) };
  const store = {
    put: async () => {
      throw new Error('stored');
    },
  };
  return new AcmeProfiles(
    store as unknown as AcmeProfileStore,
    issuance as unknown as RpcClient<IssuanceApi>,
  );
}

describe('ACME profiles', () => {
  it('refuses a validity over the server cap, a usage ACME cannot serve and a bad name', () => {
    for (const wrong of [
      { ...profile, validityDays: 826 },
      { ...profile, validityDays: 0 },
      { ...profile, usage: 'Client' },
      { ...profile, name: '-x' },
    ]) {
      expect(() => checkedProfile(wrong)).toThrow(CaError);
    }
    expect(checkedProfile(profile)).toEqual({ ...profile, default: false });
  });

  it("refuses a usage the tenant's policy leaves out, before storing anything", async () => {
    await expect(profilesUnder(['Client']).put(TENANT, profile)).rejects.toMatchObject({
      errors: [expect.objectContaining({ field: 'usage' })],
    });
    await expect(
      profilesUnder(['Server']).put(TENANT, { ...profile, usage: 'ClientAndServer' }),
    ).rejects.toBeInstanceOf(CaError);
    await expect(profilesUnder(null).put(TENANT, profile)).rejects.toThrow('stored');
  });
});
