import { ArrayMaxSize, ArrayNotEmpty, IsArray, IsIn, IsOptional, IsString } from 'class-validator';
import { TenantCommand } from '../common/tenant-command';

/** docs/api.md#issuance-policy: the most suffixes one policy may list. */
export const MAX_POLICY_SUFFIXES = 100;

/**
 * docs/api.md#issuance-policy `allowedUsages`: the leaf usages a tenant's certificates may have
 * (a leaf of usage ClientAndServer needs both). The issuing CA's EKU lists the same purposes.
 */
export const PolicyUsage = {
  Client: 'Client',
  Server: 'Server',
} as const;
export type PolicyUsage = (typeof PolicyUsage)[keyof typeof PolicyUsage];

/** Every usage, in the order a policy is stored and answered: what a policy without the field allows. */
export const ALL_POLICY_USAGES: readonly PolicyUsage[] = [PolicyUsage.Client, PolicyUsage.Server];

/** docs/api.md#issuance-policy: body of PUT /v2/policy. */
export class IssuancePolicyRequest {
  @IsArray()
  @ArrayMaxSize(MAX_POLICY_SUFFIXES)
  @IsString({ each: true })
  allowedDnsSuffixes!: string[];

  @IsOptional()
  @IsArray()
  @ArrayNotEmpty({ message: 'must list at least one usage: Client, Server or both' })
  @IsIn(ALL_POLICY_USAGES, { each: true, message: 'each usage must be Client or Server' })
  allowedUsages?: PolicyUsage[];
}

/** docs/api.md#issuance-policy: the answer of GET and PUT /v2/policy; `null` when the tenant has no policy. */
export interface IssuancePolicy {
  allowedDnsSuffixes: string[] | null;
  /** The usages allowed (both when the PUT had none); `null` with `allowedDnsSuffixes`: no policy. */
  allowedUsages: PolicyUsage[] | null;
  /**
   * PUT and DELETE only, when the change made a new issuing CA with the policy's name constraints
   * (docs/api.md#issuance-policy): the new CA, which signs leaves from now on.
   */
  issuingCaId?: string;
  /** With `issuingCaId`: the issuing CA it replaced, now retired. */
  retiredIssuingCaId?: string;
}

/**
 * `issuance.policy.set`: a list replaces the tenant's policy, `null` removes it. `allowedUsages`
 * goes with a list only; absent or null: both usages.
 */
export interface SetIssuancePolicyCommand extends TenantCommand {
  allowedDnsSuffixes: string[] | null;
  allowedUsages?: PolicyUsage[] | null;
}

/** `issuance.policy.get`. */
export interface GetIssuancePolicyQuery {
  tenantId: string;
}
