import { CaError, ErrorCode } from '@ca/contracts';
import { admitWithinLimits } from './certificate-limit';

const A = '0a0a0a0a-0000-4000-8000-000000000001';
const B = '0b0b0b0b-0000-4000-8000-000000000002';

describe('admitWithinLimits', () => {
  it('admits in batch order while the tenant has free slots and refuses the rest with CERTIFICATE_LIMIT_REACHED', () => {
    const requests = [A, A, A, A].map((tenantId) => ({ tenantId, limit: 3 }));
    const outcomes = admitWithinLimits(requests, new Map([[A, 1]]));
    expect(outcomes.slice(0, 2)).toEqual([undefined, undefined]);
    for (const refusal of outcomes.slice(2)) {
      expect(refusal).toBeInstanceOf(CaError);
      expect(refusal).toMatchObject({ code: ErrorCode.CertificateLimitReached });
      expect(refusal?.message).toBe(
        "The tenant's plan allows at most 3 active certificates and 3 are active.",
      );
    }
  });

  it('counts each tenant on its own, matching ids whatever their case, and never limits a request without a limit', () => {
    const outcomes = admitWithinLimits(
      [
        { tenantId: A.toUpperCase(), limit: 1 },
        { tenantId: B, limit: 1 },
        { tenantId: A, limit: 1 },
        { tenantId: A, limit: undefined },
      ],
      new Map([
        [A, 0],
        [B, 0],
      ]),
    );
    expect(outcomes.map((o) => o?.code)).toEqual([
      undefined,
      undefined,
      ErrorCode.CertificateLimitReached,
      undefined,
    ]);
  });

  it('refuses everything at a limit of 0, and answers a limit that is not a count with an internal error, not a conflict', () => {
    const outcomes = admitWithinLimits(
      [
        { tenantId: A, limit: 0 },
        { tenantId: A, limit: -1 },
        { tenantId: A, limit: 1.5 },
      ],
      new Map([[A, 0]]),
    );
    expect(outcomes.map((o) => o?.code)).toEqual([
      ErrorCode.CertificateLimitReached,
      ErrorCode.Internal,
      ErrorCode.Internal,
    ]);
  });
});
