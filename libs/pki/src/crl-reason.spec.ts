import { assertCrlReasonCode, CRL_REASON, isCrlReasonCode, publishedReasonCode } from './crl-reason';

describe('CRLReason (RFC 5280 5.3.1)', () => {
  it('has the RFC values', () => {
    expect(CRL_REASON).toEqual({
      unspecified: 0,
      keyCompromise: 1,
      cACompromise: 2,
      affiliationChanged: 3,
      superseded: 4,
      cessationOfOperation: 5,
      certificateHold: 6,
      privilegeWithdrawn: 9,
      aACompromise: 10,
    });
  });

  it('refuses 7 (not used), removeFromCRL (delta CRLs only) and values out of range', () => {
    for (const code of [7, 8, 11, -1, 1.5, Number.NaN]) {
      expect(isCrlReasonCode(code)).toBe(false);
      expect(() => assertCrlReasonCode(code)).toThrow(RangeError);
    }
    for (const code of Object.values(CRL_REASON)) expect(() => assertCrlReasonCode(code)).not.toThrow();
  });
});

describe('publishedReasonCode', () => {
  it('publishes the RFC 5280 reasons as they are and removeFromCRL (8) or unknown codes without a reason', () => {
    expect(publishedReasonCode(1)).toBe(1);
    expect(publishedReasonCode(0)).toBe(0);
    expect(publishedReasonCode(8)).toBeUndefined();
    expect(publishedReasonCode(7)).toBeUndefined();
  });
});
