import {
  ALL_POLICY_USAGES,
  type CertificateUsage,
  type FieldError,
  type IssuancePolicyRequest,
  type PolicyUsage,
} from '@ca/contracts';
import { dnsNameProblem } from './dns-name.rules';

/**
 * Whether a tenant's issuance policy (docs/api.md#issuance-policy) allows a name: with no policy
 * (`null`) every name the name rules accept; otherwise a DNS name, or a wildcard `*.x`, that
 * equals one of the suffixes or ends with "." + suffix (so `example.com` allows `a.example.com`
 * and `*.example.com` but not `badexample.com`). Compared case-insensitively (RFC 4343). An IP
 * address is never allowed by a policy: policies name DNS suffixes only. The admin API and ACME
 * both decide with this function.
 */
export function isNameAllowedByPolicy(name: string, allowedDnsSuffixes: readonly string[] | null): boolean {
  if (allowedDnsSuffixes === null) return true;
  const lower = name.toLowerCase();
  if (isIpLiteral(lower)) return false;
  return allowedDnsSuffixes.some((suffix) => {
    const s = suffix.toLowerCase();
    return lower === s || lower.endsWith(`.${s}`);
  });
}

/** The names a policy does not allow, in order (none when there is no policy). */
export function namesOutsidePolicy(
  names: readonly string[],
  allowedDnsSuffixes: readonly string[] | null,
): string[] {
  return names.filter((name) => !isNameAllowedByPolicy(name, allowedDnsSuffixes));
}

/** IPv4 dotted quad, IPv6 (has a colon), or either in brackets. */
function isIpLiteral(name: string): boolean {
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(name) || name.includes(':') || name.startsWith('[');
}

/**
 * Whether a policy's `allowedUsages` (docs/api.md#issuance-policy) allows a leaf usage: Client and
 * Server each need their own, ClientAndServer needs both (its EKU lists both purposes, and each
 * must be among the issuing CA's: CA/B BR 7.1.2.10.6).
 */
export function isUsageAllowedByPolicy(
  usage: CertificateUsage,
  allowedUsages: readonly PolicyUsage[],
): boolean {
  if (usage === 'ClientAndServer')
    return allowedUsages.includes('Client') && allowedUsages.includes('Server');
  return allowedUsages.includes(usage);
}

/** docs/api.md#issuance-policy: PUT /v2/policy's suffixes, each named where it breaks the name rules. */
export function issuancePolicyRequestErrors(request: IssuancePolicyRequest): FieldError[] {
  return request.allowedDnsSuffixes.flatMap((suffix, index) => {
    const problem = policySuffixProblem(suffix);
    return problem ? [{ field: `allowedDnsSuffixes[${index}]`, message: `"${suffix}" ${problem}` }] : [];
  });
}

/** A suffix follows the SAN rules of docs/api.md#name-rules, without a wildcard (it names a subtree already). */
function policySuffixProblem(suffix: string): string | undefined {
  if (suffix.includes('*')) return 'must not contain a wildcard: a suffix already covers every name under it';
  return dnsNameProblem(suffix);
}

/** Lower-cased, first occurrence kept: how a policy is stored and answered. */
export function normalizedPolicySuffixes(suffixes: readonly string[]): string[] {
  return [...new Set(suffixes.map((suffix) => suffix.toLowerCase()))];
}

/** The usages a policy allows, without duplicates and in ALL_POLICY_USAGES order; absent: every usage. */
export function normalizedPolicyUsages(usages: readonly PolicyUsage[] | null | undefined): PolicyUsage[] {
  return ALL_POLICY_USAGES.filter((usage) => !usages || usages.includes(usage));
}
