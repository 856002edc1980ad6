import { CaError, ErrorCode } from '@ca/contracts';
import { TenantDirectory } from './tenant-directory';
import { TenantRecord, TenantStore } from './tenant.store';

const TENANT = '6f1c2f4e-8a43-4c4f-9f0e-2f7b8b1d9a10';

function fakeRepository(record: Partial<TenantRecord> = {}) {
  const state: TenantRecord = {
    tenantId: TENANT,
    status: 'active',
    certificateLimit: null,
    auditRetentionDays: null,
    createdAt: new Date(),
    ...record,
  };
  const findOrCreate = jest.fn(async () => ({ ...state }));
  return { state, findOrCreate, repository: { findOrCreate } as unknown as TenantStore };
}

describe('TenantDirectory', () => {
  it('admits an active tenant, creating it on first use', async () => {
    const fake = fakeRepository();
    await expect(new TenantDirectory(fake.repository).admit(TENANT)).resolves.toBeUndefined();
    expect(fake.findOrCreate).toHaveBeenCalledWith(TENANT);
  });

  it('refuses a suspended tenant with 403 FORBIDDEN saying so', async () => {
    const fake = fakeRepository({ status: 'suspended' });
    const directory = new TenantDirectory(fake.repository);
    const refusal = directory.admit(TENANT);
    await expect(refusal).rejects.toBeInstanceOf(CaError);
    await expect(refusal).rejects.toMatchObject({ code: ErrorCode.Forbidden, message: /suspended/ });
  });

  it('caches the record for the TTL only, so a suspension reaches it quickly', async () => {
    let now = 0;
    const fake = fakeRepository();
    const directory = new TenantDirectory(fake.repository, {
      ttlMs: 2_000,
      now: () => now,
    });
    await directory.admit(TENANT);
    await directory.admit(TENANT);
    expect(fake.findOrCreate).toHaveBeenCalledTimes(1);
    fake.state.status = 'suspended';
    now = 1_999;
    await expect(directory.admit(TENANT)).resolves.toBeUndefined();
    now = 2_000;
    await expect(directory.admit(TENANT)).rejects.toMatchObject({ code: ErrorCode.Forbidden });
    expect(fake.findOrCreate).toHaveBeenCalledTimes(2);
  });

  it('does not remember a failed lookup', async () => {
    const fake = fakeRepository();
    fake.findOrCreate.mockRejectedValueOnce(new Error('database away'));
    const directory = new TenantDirectory(fake.repository);
    await expect(directory.admit(TENANT)).rejects.toThrow('database away');
    await expect(directory.admit(TENANT)).resolves.toBeUndefined();
  });
});
