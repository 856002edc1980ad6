import { UB_NAME_ATTRIBUTE } from '@ca/contracts';

const SUFFIX = ' Issuing CA';

/**
 * The commonName of a tenant's issuing CA: the root's with " Issuing CA" (and, from the second
 * on, its number) after it, so the
 * subjects differ (RFC 5280 6.1: a subject equal to its issuer's would read as self-issued). A long
 * root name is shortened by whole characters to keep within ub-common-name (RFC 5280 appendix A).
 */
export function issuingCaSubjectName(rootCommonName: string, generation = 1): string {
  // Each later issuing CA gets its number, so no two of a tenant's CAs share a subject (a CRL or
  // OCSP CertID names its issuer by subject; RFC 5280 5.1.2.3, RFC 6960 4.1.1).
  const suffix = generation > 1 ? `${SUFFIX} ${generation}` : SUFFIX;
  const characters = Array.from(rootCommonName);
  return (
    characters
      .slice(0, UB_NAME_ATTRIBUTE - suffix.length)
      .join('')
      .trimEnd() + suffix
  );
}

/**
 * The name an issuing CA's commonName was made from: without the " Issuing CA" (and number)
 * `issuingCaSubjectName` put after it, or the whole name when it has none (a corporate CA may
 * rename what it certifies). A later issuing CA under a corporate root is named from it.
 */
export function issuingCaBaseName(issuingCommonName: string): string {
  const match = new RegExp(`^(.*)${SUFFIX}(?: \\d+)?$`).exec(issuingCommonName);
  return match && match[1].trim() ? match[1] : issuingCommonName;
}
