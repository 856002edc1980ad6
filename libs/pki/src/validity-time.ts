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

/**
 * How far a new certificate's notBefore and a new CRL's thisUpdate are set back from the signing
 * clock, so that a relying party whose clock runs up to a minute behind already accepts them
 * (RFC 5280 6.1.3 (a)(2) checks the validity against the relying party's own clock; step-ca sets
 * certificates back by the same minute).
 */
export const BACKDATE_SECONDS = 60;

const SECOND_MS = 1000;
const DAY_MS = 86_400_000;

export interface ValidityPeriod {
  notBefore: Date;
  notAfter: Date;
}

/**
 * `now` less BACKDATE_SECONDS in whole seconds (X.509 times have no fractions, RFC 5280 4.1.2.5.2),
 * and never before `notEarlierThan`: a certificate must not claim validity before its issuer had any.
 */
export function backdatedStart(now: Date, notEarlierThan?: Date): Date {
  const start = Math.floor(now.getTime() / SECOND_MS) * SECOND_MS - BACKDATE_SECONDS * SECOND_MS;
  return new Date(Math.max(start, notEarlierThan?.getTime() ?? start));
}

/**
 * A validity of exactly `days` days. RFC 5280 4.1.2.5 counts both notBefore and notAfter into the
 * validity period, so `days` days end one second before notBefore + `days` × 24 h.
 */
export function validityOfDays(days: number, now: Date, issuerNotBefore?: Date): ValidityPeriod {
  const notBefore = backdatedStart(now, issuerNotBefore);
  return { notBefore, notAfter: new Date(notBefore.getTime() + days * DAY_MS - SECOND_MS) };
}

/**
 * A validity of exactly `years` calendar years in UTC (29 February rolls to 1 March in a non-leap
 * year), ending one second early for the same reason as validityOfDays.
 */
export function validityOfYears(years: number, now: Date): ValidityPeriod {
  const notBefore = backdatedStart(now);
  const end = new Date(notBefore);
  end.setUTCFullYear(end.getUTCFullYear() + years);
  return { notBefore, notAfter: new Date(end.getTime() - SECOND_MS) };
}
