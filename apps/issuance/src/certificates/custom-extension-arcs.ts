import { isUniqueViolation } from '@ca/persistence';
import { CustomExtensionArcStore } from './custom-extension-arc.store';

/** Enough for every key of many tenants; past it the memory starts over (the table stays the truth). */
const MAX_REMEMBERED = 50_000;
/** Two first uses of different keys may compute the same next arc; the loser retries. */
const ASSIGN_ATTEMPTS = 10;

/**
 * Per tenant, the arc n of `1.3.6.1.4.1.99999.2.n` of each custom-extension key
 * (`issuance.custom_extension_arcs`): assigned on first use as the next free arc and never changed,
 * so a key has one OID in all the tenant's certificates, whatever other keys a request carries.
 * Assignments are immutable, so the ones read are kept in memory.
 */
export class CustomExtensionArcs {
  private readonly known = new Map<string, number>();

  constructor(private readonly store: CustomExtensionArcStore) {}

  /** The arc of every key, assigning the next free arcs to keys the tenant never used. */
  async arcsFor(tenantId: string, keys: readonly string[]): Promise<Map<string, number>> {
    const missing = keys.filter((key) => !this.known.has(cacheKey(tenantId, key)));
    if (missing.length > 0) await this.load(tenantId, missing);
    return new Map(keys.map((key) => [key, this.known.get(cacheKey(tenantId, key)) as number]));
  }

  private async load(tenantId: string, keys: string[]): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const found = await this.store.arcsOf(tenantId, keys);
      const unassigned = keys.filter((key) => !found.has(key));
      if (unassigned.length === 0) {
        if (this.known.size + found.size > MAX_REMEMBERED) this.known.clear();
        for (const [key, arc] of found) this.known.set(cacheKey(tenantId, key), arc);
        return;
      }
      try {
        await this.store.assignNext(tenantId, unassigned);
      } catch (error) {
        // Another request took one of these arcs meanwhile (UNIQUE (tenant_id, arc)): read again.
        if (!isUniqueViolation(error) || attempt >= ASSIGN_ATTEMPTS) throw error;
      }
    }
  }
}

function cacheKey(tenantId: string, key: string): string {
  return `${tenantId}\u0000${key}`;
}
