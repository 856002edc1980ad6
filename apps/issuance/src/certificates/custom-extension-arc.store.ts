import { EntityManager } from 'typeorm';

/** `issuance.custom_extension_arcs`: per tenant, the arc each custom extension key was given. */
export abstract class CustomExtensionArcStore {
  /** The arcs of those of `keys` the tenant has used. */
  abstract arcsOf(tenantId: string, keys: readonly string[]): Promise<Map<string, number>>;
  /**
   * One statement: the keys get the arcs after the tenant's highest, in key order. A key another
   * request assigned meanwhile is skipped; an arc taken meanwhile fails it with a unique violation.
   */
  abstract assignNext(tenantId: string, keys: readonly string[]): Promise<void>;
}

export class SqlCustomExtensionArcStore extends CustomExtensionArcStore {
  constructor(private readonly db: EntityManager) {
    super();
  }

  async arcsOf(tenantId: string, keys: readonly string[]): Promise<Map<string, number>> {
    const rows: { key: string; arc: number }[] = await this.db.query(
      `SELECT key, arc FROM issuance.custom_extension_arcs WHERE tenant_id = $1 AND key = ANY($2::text[])`,
      [tenantId, keys],
    );
    return new Map(rows.map(({ key, arc }) => [key, Number(arc)]));
  }

  async assignNext(tenantId: string, keys: readonly string[]): Promise<void> {
    await this.db.query(
      `INSERT INTO issuance.custom_extension_arcs (tenant_id, key, arc)
       SELECT $1, k.key,
         (SELECT COALESCE(MAX(arc), 0) FROM issuance.custom_extension_arcs WHERE tenant_id = $1) + k.n
       FROM unnest($2::text[]) WITH ORDINALITY AS k(key, n)
       ON CONFLICT (tenant_id, key) DO NOTHING`,
      [tenantId, [...keys].sort()],
    );
  }
}
