import { CertificateStatus, ExpiryReport } from '@ca/contracts';
import { formatExpiryReport, runExpiringReport } from './expiring-report';

const summary = (tenantId: string, serialNumber: string, days: number) => ({
  certificateId: `${serialNumber}-id`,
  tenantId,
  clientId: 'payments',
  commonName: 'payments client',
  serialNumber,
  status: CertificateStatus.Active,
  expiresAt: new Date(Date.UTC(2030, 0, 1 + days)).toISOString(),
  daysUntilExpiration: days,
});

const report: ExpiryReport = {
  days: 30,
  tenants: [
    { tenantId: 'tenant-a', certificates: [summary('tenant-a', 'aa01', 3), summary('tenant-a', 'aa02', 20)] },
    { tenantId: 'tenant-b', certificates: [summary('tenant-b', 'bb01', 29)] },
  ],
};

describe('expiring report', () => {
  it('asks issuance for the window and prints, per tenant, each certificate soonest first', async () => {
    const send = jest.fn().mockResolvedValue(report);
    const out: string[] = [];
    const code = await runExpiringReport(
      { days: 30, json: false },
      { send },
      { out: (l) => void out.push(l), err: () => undefined },
    );
    expect(code).toBe(0);
    expect(send).toHaveBeenCalledWith('issuance.report.expiring', { days: 30 });
    expect(out[0]).toBe('3 Active certificates expiring within 30 days in 2 tenants');
    expect(out[1]).toBe('tenant tenant-a: 2');
    expect(out[2]).toMatch(
      /^ {2}2030-01-04T00:00:00\.000Z {5}3 d {2}aa01 {2}aa01-id {2}clientId="payments" commonName="payments client"$/,
    );
    expect(out.indexOf('tenant tenant-b: 1')).toBe(4);
  });

  it('prints one JSON object per certificate with --json, and says so when nothing expires', async () => {
    const out: string[] = [];
    await runExpiringReport(
      { days: 30, json: true },
      { send: async () => report },
      { out: (l) => void out.push(l), err: () => undefined },
    );
    expect(out.map((l) => JSON.parse(l).serialNumber)).toEqual(['aa01', 'aa02', 'bb01']);
    expect(formatExpiryReport({ days: 7, tenants: [] })).toEqual([
      '0 Active certificates expiring within 7 days',
    ]);
  });
});
