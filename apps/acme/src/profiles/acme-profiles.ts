import {
  AcmeProfile,
  CaError,
  FieldError,
  IssuanceApi,
  IssuancePattern,
  MAX_SERVER_VALIDITY_DAYS,
} from '@ca/contracts';
import { RpcClient } from '@ca/messaging';
import { AcmeProfileStore } from '../stores/acme-profile.store';

export const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const USAGES = ['Server', 'ClientAndServer'] as const;

/**
 * docs/api.md#acme-profiles: the tenant's ACME profiles (draft-ietf-acme-profiles), owned by acme.
 * A profile must fit the tenant's issuance policy (asked of issuance, which owns it) and the
 * validity cap of server certificates, so an order that chooses it is never refused for it.
 */
export class AcmeProfiles {
  constructor(
    private readonly profiles: AcmeProfileStore,
    private readonly issuance: RpcClient<IssuanceApi>,
  ) {}

  async put(tenantId: string, input: unknown): Promise<AcmeProfile> {
    const profile = checkedProfile(input);
    const policy = await this.issuance.send(IssuancePattern.GetIssuancePolicy, { tenantId });
    const allowed = policy.allowedUsages ?? ['Client', 'Server'];
    const needed = profile.usage === 'Server' ? ['Server'] : ['Client', 'Server'];
    if (!needed.every((u) => (allowed as string[]).includes(u))) {
      throw CaError.validation([
        { field: 'usage', message: `the tenant's issuance policy allows only ${allowed.join(', ')}` },
      ]);
    }
    await this.profiles.put(tenantId, profile);
    return profile;
  }

  list(tenantId: string): Promise<AcmeProfile[]> {
    return this.profiles.list(tenantId);
  }

  async delete(tenantId: string, name: string): Promise<{ deleted: true }> {
    if (!(await this.profiles.delete(tenantId, name)))
      throw CaError.notFound('No ACME profile of this tenant has this name.');
    return { deleted: true };
  }

  /** The directory's meta.profiles: name → description. */
  async descriptions(tenantId: string): Promise<Record<string, string>> {
    const profiles = await this.list(tenantId);
    return Object.fromEntries(profiles.map((p) => [p.name, p.description]));
  }

  /** The profile an order names, or the tenant's default when it names none; undefined: today's. */
  forOrder(tenantId: string, name: string | undefined): Promise<AcmeProfile | undefined> {
    return this.profiles.find(tenantId, name);
  }
}

/** The body of PUT /v2/acme/profiles/{name}, checked again here (the bus is input). */
export function checkedProfile(input: unknown): AcmeProfile {
  const p = (typeof input === 'object' && input !== null ? input : {}) as Record<string, unknown>;
  const errors: FieldError[] = [];
  if (typeof p.name !== 'string' || !PROFILE_NAME.test(p.name)) {
    errors.push({ field: 'name', message: 'must be 1 to 64 letters, digits, ".", "_" or "-"' });
  }
  if (typeof p.description !== 'string' || p.description.length === 0 || p.description.length > 255) {
    errors.push({ field: 'description', message: 'must be a string of 1 to 255 characters' });
  }
  if (
    typeof p.validityDays !== 'number' ||
    !Number.isInteger(p.validityDays) ||
    p.validityDays < 1 ||
    p.validityDays > MAX_SERVER_VALIDITY_DAYS
  ) {
    errors.push({
      field: 'validityDays',
      message: `must be an integer from 1 to ${MAX_SERVER_VALIDITY_DAYS} (server certificates)`,
    });
  }
  if (!USAGES.includes(p.usage as never))
    errors.push({ field: 'usage', message: `must be ${USAGES.join(' or ')}` });
  if (p.default !== undefined && typeof p.default !== 'boolean') {
    errors.push({ field: 'default', message: 'must be a boolean' });
  }
  if (errors.length > 0) throw CaError.validation(errors);
  return {
    name: p.name as string,
    description: p.description as string,
    validityDays: p.validityDays as number,
    usage: p.usage as AcmeProfile['usage'],
    default: p.default === true,
  };
}
