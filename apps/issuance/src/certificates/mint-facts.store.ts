import { PolicyUsage } from '@ca/contracts';
import { normalizedPolicyUsages } from '@ca/domain';
import { prepared } from '@ca/persistence';
import { EntityManager } from 'typeorm';
import type { TenantPolicy } from '../policy/issuance-policy.store';

/**
 * The predicates of IssuancePolicyStore.policyOf and CaStore.signingLeaves, and the blocked key's
 * primary key: each an indexed lookup whatever the tenant, so one generic plan serves them all.
 */
const MINT_FACTS = prepared(
  `SELECT p.tenant_id IS NOT NULL AS has_policy, p.allowed_dns_suffixes, p.allowed_usages,
          EXISTS (SELECT 1 FROM issuance.blocked_keys b WHERE b.tenant_id = t.id AND b.spki_sha256 = $2)
            AS key_blocked,
          ca.id AS ca_id, ca.revoked_at AS ca_revoked_at
     FROM (SELECT $1::uuid AS id) t
     LEFT JOIN issuance.issuance_policies p ON p.tenant_id = t.id
     LEFT JOIN LATERAL (
       SELECT id, revoked_at FROM issuance.certificate_authorities
        WHERE tenant_id = t.id AND retired_at IS NULL ORDER BY (role = 'issuing') DESC LIMIT 1
     ) ca ON true`,
);

/** The CA that signs a tenant's leaves now, as `CaStore.signingLeaves` reads it. */
export interface SigningCaRow {
  id: string;
  revokedAt: Date | null;
}

/** What a new leaf's checks need to know of its tenant and key, read together. */
export interface MintFacts {
  /** The tenant's issuance policy, or null when it has none. */
  policy: TenantPolicy | null;
  /** Whether the tenant blocked the subject key (revoked for keyCompromise). */
  keyBlocked: boolean;
  /** The CA that signs leaves now; undefined when the tenant has none (yet). */
  signingCa: SigningCaRow | undefined;
}

/**
 * The three reads every new certificate makes before it is signed (its tenant's policy, whether
 * its key is blocked, which CA signs leaves now), in one statement: each read is a round trip,
 * and on the embedded database a turn of its one session that waits behind every transaction in
 * flight. Read afresh for every certificate, never cached, so that a policy, a blocked key or a
 * rollover recorded through one replica holds at once on every other.
 */
export abstract class MintFactsStore {
  abstract factsFor(tenantId: string, spkiSha256: Buffer): Promise<MintFacts>;
}

export class SqlMintFactsStore extends MintFactsStore {
  constructor(private readonly db: EntityManager) {
    super();
  }

  async factsFor(tenantId: string, spkiSha256: Buffer): Promise<MintFacts> {
    const rows: {
      has_policy: boolean;
      allowed_dns_suffixes: string[] | null;
      allowed_usages: PolicyUsage[] | null;
      key_blocked: boolean;
      ca_id: string | null;
      ca_revoked_at: Date | null;
    }[] = await this.db.query(MINT_FACTS, [tenantId, spkiSha256]);
    const row = rows[0];
    return {
      policy: row.has_policy
        ? {
            allowedDnsSuffixes: row.allowed_dns_suffixes ?? [],
            allowedUsages: normalizedPolicyUsages(row.allowed_usages),
          }
        : null,
      keyBlocked: row.key_blocked,
      signingCa: row.ca_id === null ? undefined : { id: row.ca_id, revokedAt: row.ca_revoked_at },
    };
  }
}
