import * as pkijs from 'pkijs';

/**
 * A certificate or CRL time (RFC 5280 4.1.2.5): UTCTime for the years 1950 to 2049, GeneralizedTime
 * otherwise. Both are written in whole seconds: 4.1.2.5.2 forbids fractional seconds, which asn1js
 * would otherwise emit for a Date with milliseconds, so the milliseconds are dropped.
 */
export function encodeTime(date: Date): pkijs.Time {
  if (Number.isNaN(date.getTime())) throw new RangeError('Invalid Date');
  const value = new Date(Math.floor(date.getTime() / 1000) * 1000);
  const year = value.getUTCFullYear();
  if (year < 0 || year > 9999) throw new RangeError(`Year ${year} does not fit an X.509 time`);
  const type = year >= 1950 && year < 2050 ? pkijs.TimeType.UTCTime : pkijs.TimeType.GeneralizedTime;
  return new pkijs.Time({ type, value });
}
