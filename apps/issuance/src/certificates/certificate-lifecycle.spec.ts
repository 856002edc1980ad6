import { addDays, daysUntilExpiration, statusOf } from './certificate-lifecycle';

const now = new Date('2026-11-22T12:00:00Z');

describe('certificate lifecycle', () => {
  it('derives Active, Expired and Revoked', () => {
    expect(statusOf({ revokedAt: null, notAfter: addDays(now, 1) }, now)).toBe('Active');
    expect(statusOf({ revokedAt: null, notAfter: now }, now)).toBe('Expired');
    expect(statusOf({ revokedAt: now, notAfter: addDays(now, -3) }, now)).toBe('Revoked');
  });

  it('counts whole days left, rounded down, never below 0', () => {
    expect(daysUntilExpiration(addDays(now, 30), now)).toBe(30);
    expect(daysUntilExpiration(new Date(addDays(now, 30).getTime() - 1), now)).toBe(29);
    expect(daysUntilExpiration(new Date(now.getTime() + 1000), now)).toBe(0);
    expect(daysUntilExpiration(addDays(now, -5), now)).toBe(0);
  });
});
