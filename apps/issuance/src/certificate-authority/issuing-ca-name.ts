import { UB_NAME_ATTRIBUTE } from '@ca/contracts';

const SUFFIX = ' Issuing CA';

/**
 * The commonName of a tenant's issuing CA: the root's with " Issuing CA" after it, so the two
 * subjects differ (RFC 5280 6.1: a subject equal to its issuer's would read as self-issued). A long
 * root name is shortened by whole characters to keep within ub-common-name (RFC 5280 appendix A).
 */
export function issuingCaSubjectName(rootCommonName: string): string {
  const characters = Array.from(rootCommonName);
  return (
    characters
      .slice(0, UB_NAME_ATTRIBUTE - SUFFIX.length)
      .join('')
      .trimEnd() + SUFFIX
  );
}
