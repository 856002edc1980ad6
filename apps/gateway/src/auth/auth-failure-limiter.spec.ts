import { AuditEntryInput } from '../audit/audit-chain';
import { AuthFailureLimiter } from './auth-failure-limiter';

describe('AuthFailureLimiter', () => {
  let clock: number;
  let entries: AuditEntryInput[];
  let limiter: AuthFailureLimiter;

  beforeEach(() => {
    clock = 60_000 * 1000 + 15_000; // 15 s into a minute
    entries = [];
    limiter = new AuthFailureLimiter(
      3,
      (entry) => entries.push(entry),
      () => clock,
    );
  });

  it('throttles an address past its limit until the minute ends, with the seconds left', () => {
    for (let i = 0; i < 3; i++) {
      expect(limiter.check('10.0.0.1').throttled).toBe(false);
      limiter.recordFailure('10.0.0.1', false);
    }
    expect(limiter.check('10.0.0.1')).toEqual({ throttled: true, retryAfterSeconds: 45 });
    expect(limiter.check('10.0.0.2').throttled).toBe(false);
    clock += 45_000;
    expect(limiter.check('10.0.0.1').throttled).toBe(false);
  });

  it('has the first failure of a minute audited alone and one summary with the count of the rest', () => {
    expect(limiter.recordFailure('10.0.0.1', false)).toBe(true);
    for (let i = 0; i < 499; i++) limiter.recordFailure('10.0.0.1', i >= 2);
    expect(entries).toHaveLength(0);
    clock += 60_000;
    limiter.stop();
    expect(entries).toEqual([
      expect.objectContaining({
        action: 'auth.failures',
        resource: 'source-address/10.0.0.1',
        result: 429,
        code: 'RATE_LIMITED',
        tenantId: null,
        principal: null,
        occurrences: 499,
      }),
    ]);
  });

  it('writes no summary for a minute with a single failure', () => {
    expect(limiter.recordFailure('10.0.0.1', false)).toBe(true);
    limiter.stop();
    expect(entries).toHaveLength(0);
  });
});
