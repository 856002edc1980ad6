import * as pkijs from 'pkijs';

import {
  BACKDATE_SECONDS,
  backdatedStart,
  encodeTime,
  validityOfDays,
  validityOfYears,
} from './validity-time';

const der = (date: Date) => Buffer.from(encodeTime(date).toSchema().toBER(false));

describe('encodeTime (RFC 5280 4.1.2.5)', () => {
  it('writes UTCTime YYMMDDHHMMSSZ up to 2049', () => {
    const time = encodeTime(new Date('2049-12-31T23:59:59Z'));
    expect(time.type).toBe(pkijs.TimeType.UTCTime);
    expect(der(new Date('2049-12-31T23:59:59Z'))).toEqual(Buffer.from('\x17\x0d491231235959Z', 'latin1'));
    expect(der(new Date('1950-01-01T00:00:00Z'))).toEqual(Buffer.from('\x17\x0d500101000000Z', 'latin1'));
  });

  it('writes GeneralizedTime YYYYMMDDHHMMSSZ from 2050 (a 30-year CA reaches it)', () => {
    expect(encodeTime(new Date('2056-03-01T12:00:00Z')).type).toBe(pkijs.TimeType.GeneralizedTime);
    expect(der(new Date('2050-01-01T00:00:00Z'))).toEqual(Buffer.from('\x18\x0f20500101000000Z', 'latin1'));
    expect(der(new Date('1949-12-31T23:59:59Z'))).toEqual(Buffer.from('\x18\x0f19491231235959Z', 'latin1'));
  });

  it('drops fractional seconds, which RFC 5280 4.1.2.5.2 forbids', () => {
    expect(der(new Date('2056-03-01T12:00:00.999Z'))).toEqual(
      Buffer.from('\x18\x0f20560301120000Z', 'latin1'),
    );
    expect(encodeTime(new Date('2030-01-01T00:00:00.500Z')).value).toEqual(new Date('2030-01-01T00:00:00Z'));
  });

  it('rejects an invalid or unrepresentable date', () => {
    expect(() => encodeTime(new Date('nope'))).toThrow(RangeError);
    expect(() => encodeTime(new Date('+010000-01-01T00:00:00Z'))).toThrow(RangeError);
  });
});

describe('validity periods (RFC 5280 4.1.2.5: notBefore through notAfter, both inclusive)', () => {
  const now = new Date('2026-11-26T12:00:00.750Z');

  it('sets the start back 60 seconds, in whole seconds', () => {
    expect(BACKDATE_SECONDS).toBe(60);
    expect(backdatedStart(now)).toEqual(new Date('2026-11-26T11:59:00Z'));
  });

  it('never starts before the issuer does', () => {
    const issuerNotBefore = new Date('2026-11-26T11:59:30Z');
    expect(backdatedStart(now, issuerNotBefore)).toEqual(issuerNotBefore);
    expect(backdatedStart(now, new Date('2020-01-01T00:00:00Z'))).toEqual(new Date('2026-11-26T11:59:00Z'));
    expect(validityOfDays(1, now, issuerNotBefore)).toEqual({
      notBefore: issuerNotBefore,
      notAfter: new Date('2026-11-27T11:59:29Z'),
    });
  });

  it('makes N days end one second before notBefore + N days, so that the period is exactly N days', () => {
    const { notBefore, notAfter } = validityOfDays(90, now);
    expect(notBefore).toEqual(new Date('2026-11-26T11:59:00Z'));
    expect(notAfter).toEqual(new Date('2027-02-24T11:58:59Z'));
    // Counting the last second in: exactly 90 × 24 h.
    expect(notAfter.getTime() + 1000 - notBefore.getTime()).toBe(90 * 86_400_000);
  });

  it('makes N calendar years end one second early, 29 February rolling to 1 March', () => {
    expect(validityOfYears(10, now)).toEqual({
      notBefore: new Date('2026-11-26T11:59:00Z'),
      notAfter: new Date('2036-11-26T11:58:59Z'),
    });
    expect(validityOfYears(1, new Date('2028-02-29T00:01:00Z'))).toEqual({
      notBefore: new Date('2028-02-29T00:00:00Z'),
      notAfter: new Date('2029-02-28T23:59:59Z'),
    });
  });
});
