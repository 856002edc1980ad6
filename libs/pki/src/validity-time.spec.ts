import * as pkijs from 'pkijs';

import { encodeTime } from './validity-time';

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
