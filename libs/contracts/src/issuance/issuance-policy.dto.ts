import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsString } from 'class-validator';
import { FieldError } from '../common/ca-error';
import { TenantCommand } from '../common/tenant-command';
import { dnsNameProblem } from './dns-name.rules';

/** docs/api.md#issuance-policy: the most suffixes one policy may list. */
export const MAX_POLICY_SUFFIXES = 100;

/** docs/api.md#issuance-policy: body of PUT /v2/policy. */
export class IssuancePolicyRequest {
  @ApiProperty({
    type: [String],
    maxItems: MAX_POLICY_SUFFIXES,
    example: ['example.com', 'internal.example.net'],
    description:
      'DNS suffixes (A-labels, no wildcard) under which the tenant may certify names. A name is allowed ' +
      'when it equals a suffix or ends with "." + suffix. Stored lower-cased and without duplicates. ' +
      'An empty list allows no DNS name at all; DELETE /v2/policy removes the policy.',
  })
  @IsArray()
  @ArrayMaxSize(MAX_POLICY_SUFFIXES)
  @IsString({ each: true })
  allowedDnsSuffixes!: string[];

  /** Run by validateDto, in the gateway and again in issuance, once the per-field rules passed. */
  static crossFieldErrors(request: IssuancePolicyRequest): FieldError[] {
    return request.allowedDnsSuffixes.flatMap((suffix, index) => {
      const problem = policySuffixProblem(suffix);
      return problem ? [{ field: `allowedDnsSuffixes[${index}]`, message: `"${suffix}" ${problem}` }] : [];
    });
  }
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

/** docs/api.md#issuance-policy: the answer of GET and PUT /v2/policy; `null` when the tenant has no policy. */
export interface IssuancePolicy {
  allowedDnsSuffixes: string[] | null;
}

/** `issuance.policy.set`: a list replaces the tenant's policy, `null` removes it. */
export interface SetIssuancePolicyCommand extends TenantCommand {
  allowedDnsSuffixes: string[] | null;
}

/** `issuance.policy.get`. */
export interface GetIssuancePolicyQuery {
  tenantId: string;
}
