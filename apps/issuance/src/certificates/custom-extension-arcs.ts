import { isUniqueViolation } from '@ca/persistence';
import { DataSource } from 'typeorm';

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

  constructor(private readonly dataSource: DataSource) {}

  /** The arc of every key, assigning the next free arcs to keys the tenant never used. */
  async arcsFor(tenantId: string, keys: readonly string[]): Promise<Map<string, number>> {
    const missing = keys.filter((key) => !this.known.has(cacheKey(tenantId, key)));
    if (missing.length > 0) await this.load(tenantId, missing);
    return new Map(keys.map((key) => [key, this.known.get(cacheKey(tenantId, key)) as number]));
  }

  private async load(tenantId: string, keys: string[]): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const found = await this.read(tenantId, keys);
      const unassigned = keys.filter((key) => !found.has(key));
      if (unassigned.length === 0) {
        if (this.known.size + found.size > MAX_REMEMBERED) this.known.clear();
        for (const [key, arc] of found) this.known.set(cacheKey(tenantId, key), arc);
        return;
      }
      try {
        await this.assign(tenantId, unassigned);
      } catch (error) {
        // Another request took one of these arcs meanwhile (UNIQUE (tenant_id, arc)): read again.
        if (!isUniqueViolation(error) || attempt >= ASSIGN_ATTEMPTS) throw error;
      }
    }
  }

  private async read(tenantId: string, keys: string[]): Promise<Map<string, number>> {
    const rows: { key: string; arc: number }[] = await this.dataSource.query(
      `SELECT key, arc FROM issuance.custom_extension_arcs WHERE tenant_id = $1 AND key = ANY($2::text[])`,
      [tenantId, keys],
    );
    return new Map(rows.map(({ key, arc }) => [key, Number(arc)]));
  }

  /**
   * One statement: the keys get the arcs after the tenant's highest, in key order. A key another
   * request assigned meanwhile is skipped (ON CONFLICT on the key); an arc taken meanwhile fails
   * the statement with a unique violation, and the caller reads and tries again.
   */
  private async assign(tenantId: string, keys: string[]): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO issuance.custom_extension_arcs (tenant_id, key, arc)
       SELECT $1, k.key,
         (SELECT COALESCE(MAX(arc), 0) FROM issuance.custom_extension_arcs WHERE tenant_id = $1) + k.n
       FROM unnest($2::text[]) WITH ORDINALITY AS k(key, n)
       ON CONFLICT (tenant_id, key) DO NOTHING`,
      [tenantId, [...keys].sort()],
    );
  }
}

function cacheKey(tenantId: string, key: string): string {
  return `${tenantId}\u0000${key}`;
}
