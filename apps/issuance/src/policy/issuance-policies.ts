import { CaError, CertificateUsage, ErrorCode, FieldError } from '@ca/contracts';
import {
  isUsageAllowedByPolicy,
  looksLikeHostName,
  mayBeReadAsDnsName,
  namesOutsidePolicy,
} from '@ca/domain';
import { IssuancePolicyStore, TenantPolicy } from './issuance-policy.store';

export type { TenantPolicy } from './issuance-policy.store';

/**
 * The tenants' issuance policies (docs/api.md#issuance-policy) and what they allow. Never
 * cached: each issuance reads its tenant's policy afresh (MintFactsStore), so a policy set through
 * one issuance replica holds at once for a certificate another replica signs.
 */
export class IssuancePolicies {
  constructor(readonly store: IssuancePolicyStore) {}

  /** The tenant's policy, or null when it has none. */
  policyOf(tenantId: string): Promise<TenantPolicy | null> {
    return this.store.policyOf(tenantId);
  }
}

/**
 * Refuses (400 USAGE_NOT_ALLOWED_BY_POLICY) a certificate whose usage (v1: Client) the policy's
 * `allowedUsages` leaves out: its issuing CA's EKU would not cover the leaf's.
 * Refuses (400 NAME_NOT_ALLOWED_BY_POLICY, naming each name) a certificate whose DNS SANs, or
 * whose CN written like a host name, fall outside the tenant's policy; without DNS SANs also a
 * CN openssl would check as a DNS name against the issuing CA's name constraints (`10.0.0.1`),
 * so that every leaf verifies under its constrained CA. Issue and renew, v1 and v2, all pass
 * here, so a policy set after issuance also holds for renewals. `policy` null: the tenant has
 * none, and everything is allowed.
 */
export function assertPolicyAllows(
  policy: TenantPolicy | null,
  request: { usage: CertificateUsage; commonName: string; dnsNames: readonly string[] },
): void {
  if (policy === null) return;
  if (!isUsageAllowedByPolicy(request.usage, policy.allowedUsages)) {
    const allowed = policy.allowedUsages.join(' and ');
    throw new CaError(
      ErrorCode.UsageNotAllowedByPolicy,
      `The tenant's issuance policy allows usage ${allowed} only, not ${request.usage}.`,
      [{ field: 'usage', message: `must be allowed by the issuance policy (${allowed})` }],
    );
  }
  const suffixes = policy.allowedDnsSuffixes;
  const refused = namesOutsidePolicy(request.dnsNames, suffixes).map((name) => ({
    field: 'subjectAlternativeNames',
    name,
  }));
  const cn = request.commonName;
  const cnIsSan = request.dnsNames.some((name) => name.toLowerCase() === cn.toLowerCase());
  const cnIsChecked =
    (looksLikeHostName(cn) && !cnIsSan) || (request.dnsNames.length === 0 && mayBeReadAsDnsName(cn));
  if (cnIsChecked && namesOutsidePolicy([cn], suffixes).length > 0) {
    refused.unshift({ field: 'commonName', name: cn });
  }
  if (refused.length === 0) return;
  const errors: FieldError[] = refused.map(({ field, name }) => ({
    field,
    message: `"${name}" is not under any DNS suffix the tenant's issuance policy allows`,
  }));
  const listed = refused.map(({ name }) => `"${name}"`).join(', ');
  throw new CaError(
    ErrorCode.NameNotAllowedByPolicy,
    `The tenant's issuance policy does not allow ${listed}.`,
    errors,
  );
}
