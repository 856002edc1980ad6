import { MAX_SERVER_VALIDITY_DAYS } from '@ca/contracts';
import { TAG } from '../der-writer';
import { SERVER_AUTH, extendedKeyUsages, isCa } from './extension-values';
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
  {
    // The request rules refuse more (docs/api.md); this is the last word before a signature, for
    // every path that makes a leaf (API, CSR, ACME, renewals).
    name: 'e_server_leaf_validity_over_825_days',
    source: 'CA/B BR 6.3.2 (825 days); docs/lints.md',
    check: (view) => {
      if (isCa(view) || !extendedKeyUsages(view).includes(SERVER_AUTH)) return undefined;
      const days = validityDays(view.notBefore.date, view.notAfter.date);
      return days > MAX_SERVER_VALIDITY_DAYS
        ? `a server certificate valid ${days.toFixed(2)} days, more than ${MAX_SERVER_VALIDITY_DAYS}`
        : undefined;
    },
  },
];

/** RFC 5280 4.1.2.5: the period includes both notBefore and notAfter (whole seconds). */
function validityDays(notBefore: Date, notAfter: Date): number {
  return (notAfter.getTime() - notBefore.getTime() + 1_000) / 86_400_000;
}
