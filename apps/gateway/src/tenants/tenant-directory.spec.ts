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
  it('admits an active tenant with the default limit, or its own', async () => {
    const fake = fakeRepository();
    const directory = new TenantDirectory(fake.repository, { defaultCertificateLimit: 1000 });
    await expect(directory.admit(TENANT)).resolves.toEqual({ tenantId: TENANT, certificateLimit: 1000 });
    const limited = fakeRepository({ certificateLimit: 2 });
    await expect(
      new TenantDirectory(limited.repository, { defaultCertificateLimit: 1000 }).admit(TENANT),
    ).resolves.toEqual({ tenantId: TENANT, certificateLimit: 2 });
  });

  it('refuses a suspended tenant with 403 FORBIDDEN saying so', async () => {
    const fake = fakeRepository({ status: 'suspended' });
    const directory = new TenantDirectory(fake.repository, { defaultCertificateLimit: 1000 });
    const refusal = directory.admit(TENANT);
    await expect(refusal).rejects.toBeInstanceOf(CaError);
    await expect(refusal).rejects.toMatchObject({ code: ErrorCode.Forbidden, message: /suspended/ });
  });

  it('caches the record for the TTL only, so a suspension reaches it quickly', async () => {
    let now = 0;
    const fake = fakeRepository();
    const directory = new TenantDirectory(fake.repository, {
      defaultCertificateLimit: 10,
      ttlMs: 2_000,
      now: () => now,
    });
    await directory.admit(TENANT);
    await directory.admit(TENANT);
    expect(fake.findOrCreate).toHaveBeenCalledTimes(1);
    fake.state.status = 'suspended';
    now = 1_999;
    await expect(directory.admit(TENANT)).resolves.toBeDefined();
    now = 2_000;
    await expect(directory.admit(TENANT)).rejects.toMatchObject({ code: ErrorCode.Forbidden });
    expect(fake.findOrCreate).toHaveBeenCalledTimes(2);
  });

  it('does not remember a failed lookup', async () => {
    const fake = fakeRepository();
    fake.findOrCreate.mockRejectedValueOnce(new Error('database away'));
    const directory = new TenantDirectory(fake.repository, { defaultCertificateLimit: 10 });
    await expect(directory.admit(TENANT)).rejects.toThrow('database away');
    await expect(directory.admit(TENANT)).resolves.toBeDefined();
  });
});
