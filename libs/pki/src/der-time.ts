import { TAG } from './der-writer';
import { PkiFormatError } from './pki-format.error';

/**
 * Times written and read as DER bytes, for the CRL and OCSP encoders that bypass asn1js:
 * UTCTime `YYMMDDHHMMSSZ` and GeneralizedTime `YYYYMMDDHHMMSSZ` (X.680 sections 46 and 47), in
 * whole seconds and always in UTC as RFC 5280 4.1.2.5.1 / 4.1.2.5.2 and RFC 6960 require.
 */

/** Largest encoded Time: GeneralizedTime, tag, length and 15 characters. */
export const MAX_TIME_DER_LENGTH = 17;

/**
 * The RFC 5280 Time CHOICE (4.1.2.5 for certificates, 5.1.2.4 to 5.1.2.6 for CRLs): UTCTime for
 * the years 1950 to 2049, GeneralizedTime otherwise. Writes at `offset`; returns the offset after.
 * Milliseconds are dropped, as fractional seconds are not allowed.
 */
export function writeTime(target: Uint8Array, offset: number, date: Date): number {
  const year = checkedYear(date);
  return year >= 1950 && year < 2050
    ? writeDigits(target, offset, TAG.utcTime, date, year % 100, 2)
    : writeDigits(target, offset, TAG.generalizedTime, date, year, 4);
}

/** `writeTime` into a new array. */
export function encodeTimeDer(date: Date): Uint8Array {
  const target = new Uint8Array(MAX_TIME_DER_LENGTH);
  return target.subarray(0, writeTime(target, 0, date));
}

/** GeneralizedTime whatever the year, as OCSP writes producedAt, thisUpdate, nextUpdate (RFC 6960 4.2.1). */
export function encodeGeneralizedTimeDer(date: Date): Uint8Array {
  const target = new Uint8Array(MAX_TIME_DER_LENGTH);
  return target.subarray(0, writeDigits(target, 0, TAG.generalizedTime, date, checkedYear(date), 4));
}

/**
 * Reads a UTCTime or GeneralizedTime in the only forms RFC 5280 allows (seconds present, `Z`, no
 * fraction). With `strictTimeChoice`, the RFC 5280 rule must have been followed too: UTCTime
 * through 2049, GeneralizedTime from 2050 (and before 1950).
 */
export function decodeTime(tag: number, contents: Uint8Array, what: string, strictTimeChoice: boolean): Date {
  const text = Buffer.from(contents.buffer, contents.byteOffset, contents.byteLength).toString('latin1');
  let year: number;
  let rest: string;
  if (tag === TAG.utcTime) {
    if (!/^\d{12}Z$/.test(text)) throw new PkiFormatError(`${what}: not a UTCTime YYMMDDHHMMSSZ`);
    const yy = Number(text.slice(0, 2));
    year = yy >= 50 ? 1900 + yy : 2000 + yy;
    rest = text.slice(2);
  } else if (tag === TAG.generalizedTime) {
    if (!/^\d{14}Z$/.test(text)) throw new PkiFormatError(`${what}: not a GeneralizedTime YYYYMMDDHHMMSSZ`);
    year = Number(text.slice(0, 4));
    rest = text.slice(4);
    if (strictTimeChoice && year >= 1950 && year < 2050) {
      throw new PkiFormatError(`${what}: a year from 1950 to 2049 must be a UTCTime (RFC 5280 5.1.2.4)`);
    }
  } else {
    throw new PkiFormatError(`${what}: not a UTCTime or GeneralizedTime`);
  }
  const [month, day, hours, minutes, seconds] = [0, 2, 4, 6, 8].map((at) => Number(rest.slice(at, at + 2)));
  const date = new Date(Date.UTC(year, month - 1, day, hours, minutes, seconds));
  date.setUTCFullYear(year); // Date.UTC maps the years 0 to 99 to 1900 to 1999
  if (
    date.getUTCFullYear() !== year ||
    date.getUTCMonth() !== month - 1 ||
    date.getUTCDate() !== day ||
    date.getUTCHours() !== hours ||
    date.getUTCMinutes() !== minutes ||
    date.getUTCSeconds() !== seconds
  ) {
    throw new PkiFormatError(`${what}: "${text}" is not a valid date and time`);
  }
  return date;
}

function checkedYear(date: Date): number {
  const time = date.getTime();
  if (Number.isNaN(time)) throw new RangeError('Invalid Date');
  const year = date.getUTCFullYear();
  if (year < 0 || year > 9999) throw new RangeError(`Year ${year} does not fit an X.509 time`);
  return year;
}

function writeDigits(
  target: Uint8Array,
  offset: number,
  tag: number,
  date: Date,
  year: number,
  yearDigits: 2 | 4,
): number {
  target[offset] = tag;
  target[offset + 1] = yearDigits + 11;
  let at = offset + 2;
  if (yearDigits === 4) {
    at = twoDigits(target, at, (year / 100) | 0);
  }
  at = twoDigits(target, at, year % 100);
  at = twoDigits(target, at, date.getUTCMonth() + 1);
  at = twoDigits(target, at, date.getUTCDate());
  at = twoDigits(target, at, date.getUTCHours());
  at = twoDigits(target, at, date.getUTCMinutes());
  at = twoDigits(target, at, date.getUTCSeconds());
  target[at] = 0x5a; // 'Z'
  return at + 1;
}

// Integer division by `| 0` rather than Math.floor: the values are small and non-negative, and
// Math calls are not inlined where a module runs in another V8 context (Jest's), making them the
// bottleneck of a million-entry CRL there.
function twoDigits(target: Uint8Array, at: number, value: number): number {
  target[at] = 0x30 + ((value / 10) | 0);
  target[at + 1] = 0x30 + (value % 10);
  return at + 2;
}
