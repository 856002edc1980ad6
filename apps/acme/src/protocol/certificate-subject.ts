/**
 * The organizational unit of every ACME certificate: the name CAs traditionally give a certificate
 * whose only vetting was control of its domain names (RFC 8555 8), as ACME's is.
 */
export const ACME_ORGANIZATIONAL_UNIT = 'Domain Control Validated';

/** RFC 5280 Appendix A.1 ub-common-name. */
const UB_COMMON_NAME = 64;

/**
 * The CN of an ACME certificate (docs/api.md#acme-certificate-profile): the first identifier that
 * fits (64 characters, RFC 5280 ub-common-name); none when none fits (the subjectAltName names
 * them all). O and C are those of the tenant's signing CA, which issuance sets as it signs; the OU
 * is ACME_ORGANIZATIONAL_UNIT. Nothing in the subject is the requester's word beyond the names it
 * proved it controls.
 */
export function acmeCommonName(identifiers: readonly string[]): string | undefined {
  return identifiers.find((name) => name.length <= UB_COMMON_NAME);
}
