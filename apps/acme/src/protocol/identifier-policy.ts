import { dnsNameProblem, isNameAllowedByPolicy } from '@ca/domain';
import { AcmeProblem } from './acme-problem';

/** At most this many names in one order (the admin API's SAN limit). */
export const MAX_IDENTIFIERS = 50;

/** The tenant's allowed DNS suffixes; null: any valid name (docs/api.md#issuance-policy). */
export type PolicyLookup = (tenantId: string) => Promise<readonly string[] | null>;

/** The same rule as the admin API's (docs/api.md#issuance-policy). */
export const nameAllowed = isNameAllowedByPolicy;

/**
 * RFC 8555 7.4: the identifiers of a newOrder, lower-cased and de-duplicated. DNS names only, by
 * the admin API's name rules: a wildcard is the whole left-most label (`*.example.com`, RFC 6125
 * 6.4.3), never directly under a public suffix; its authorization offers dns-01 only. A name
 * outside the tenant's policy is rejectedIdentifier (a wildcard under an allowed suffix is inside).
 */
export function readIdentifiers(value: unknown, suffixes: readonly string[] | null): string[] {
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_IDENTIFIERS) {
    throw new AcmeProblem('malformed', `identifiers must list 1 to ${MAX_IDENTIFIERS} identifiers`);
  }
  const names = new Set<string>();
  for (const identifier of value) {
    const { type, value: name } = (identifier ?? {}) as { type?: unknown; value?: unknown };
    if (type !== 'dns') throw new AcmeProblem('unsupportedIdentifier', 'only dns identifiers are supported');
    if (typeof name !== 'string') throw new AcmeProblem('malformed', 'an identifier value must be a string');
    const lower = name.toLowerCase();
    const problem = dnsNameProblem(lower);
    if (problem) throw new AcmeProblem('rejectedIdentifier', `${name} ${problem}`);
    if (!nameAllowed(lower, suffixes)) {
      throw new AcmeProblem('rejectedIdentifier', `${name} is outside this tenant's issuance policy`);
    }
    names.add(lower);
  }
  return [...names];
}
