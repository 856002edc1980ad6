import { CaError, ErrorCode } from '@ca/contracts';
import { TenantStanding, admitWithinLimits } from './certificate-limit';

const A = '0a0a0a0a-0000-4000-8000-000000000001';
const B = '0b0b0b0b-0000-4000-8000-000000000002';
const standing = (active: number, limit: number, suspended = false): TenantStanding => ({
  active,
  limit,
  suspended,
});

describe('admitWithinLimits', () => {
  it('admits in batch order while the tenant has free slots and refuses the rest with CERTIFICATE_LIMIT_REACHED', () => {
    const requests = [A, A, A, A].map((tenantId) => ({ tenantId }));
    const outcomes = admitWithinLimits(requests, new Map([[A, standing(1, 3)]]));
    expect(outcomes.slice(0, 2)).toEqual([undefined, undefined]);
    for (const refusal of outcomes.slice(2)) {
      expect(refusal).toBeInstanceOf(CaError);
      expect(refusal).toMatchObject({ code: ErrorCode.CertificateLimitReached });
      expect(refusal?.message).toBe(
        "The tenant's plan allows at most 3 active certificates and 3 are active.",
      );
    }
  });

  it('counts each tenant on its own, matching ids whatever their case', () => {
    const outcomes = admitWithinLimits(
      [{ tenantId: A.toUpperCase() }, { tenantId: B }, { tenantId: A }],
      new Map([
        [A, standing(0, 1)],
        [B, standing(0, 1)],
      ]),
    );
    expect(outcomes.map((o) => o?.code)).toEqual([undefined, undefined, ErrorCode.CertificateLimitReached]);
  });

  it('refuses every request of a suspended tenant with FORBIDDEN, whatever its free slots', () => {
    const outcomes = admitWithinLimits(
      [{ tenantId: A }, { tenantId: B }],
      new Map([
        [A, standing(0, 100, true)],
        [B, standing(0, 100)],
      ]),
    );
    expect(outcomes.map((o) => o?.code)).toEqual([ErrorCode.Forbidden, undefined]);
    expect(outcomes[0]?.message).toMatch(/suspended/);
  });

  it('refuses everything at a limit of 0, and a tenant it read no standing for with an internal error', () => {
    const outcomes = admitWithinLimits([{ tenantId: A }, { tenantId: B }], new Map([[A, standing(0, 0)]]));
    expect(outcomes.map((o) => o?.code)).toEqual([ErrorCode.CertificateLimitReached, ErrorCode.Internal]);
  });
});
