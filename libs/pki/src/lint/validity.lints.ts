import { TAG } from '../der-writer';
import type { Lint } from './lint';
import type { EncodedTime, TbsCertificateView } from './tbs-certificate.view';

/** RFC 5280 4.1.2.5 (and 5.1.2.4 for CRLs): UTCTime for 1950 to 2049, GeneralizedTime otherwise. */
export function timeChoiceProblem(time: EncodedTime, what: string): string | undefined {
  const year = time.date.getUTCFullYear();
  const utc = year >= 1950 && year < 2050;
  if (utc && time.tag !== TAG.utcTime) return `${what} in ${year} must be a UTCTime`;
  if (!utc && time.tag !== TAG.generalizedTime) return `${what} in ${year} must be a GeneralizedTime`;
  return undefined;
}

export const VALIDITY_LINTS: Lint<TbsCertificateView>[] = [
  {
    name: 'e_validity_not_before_after_not_after',
    source: 'RFC 5280 4.1.2.5',
    check: ({ notBefore, notAfter }) =>
      notBefore.date.getTime() < notAfter.date.getTime()
        ? undefined
        : `notBefore ${notBefore.date.toISOString()} is not before notAfter ${notAfter.date.toISOString()}`,
  },
  {
    name: 'e_validity_time_encoding',
    source: 'RFC 5280 4.1.2.5',
    check: ({ notBefore, notAfter }) =>
      timeChoiceProblem(notBefore, 'notBefore') ?? timeChoiceProblem(notAfter, 'notAfter'),
  },
];
