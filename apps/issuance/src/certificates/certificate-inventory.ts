import {
  CertificateSource,
  InventoryFilter,
  InventoryItem,
  InventoryPage,
  InventorySort,
  InventorySummary,
  InventorySummaryQuery,
  SearchCertificatesQuery,
  assertCommandFields,
  canonicalInventoryQuery,
  parseInventoryQuery,
} from '@ca/contracts';
import { DataSource } from 'typeorm';
import { addDays, daysUntilExpiration, statusOf } from './certificate-lifecycle';
import { InventoryCursors, KeysetPosition } from './inventory-cursor';

interface InventoryRow {
  id: string;
  client_id: string;
  common_name: string;
  serial_number: string;
  issued_at: Date;
  not_after: Date;
  revoked_at: Date | null;
  dns_names: string[];
  usage: string;
  ca_id: string;
  source: CertificateSource;
  sort_key: string;
}

/** The sort column and direction of each order; the id breaks ties in the same direction. */
const ORDERS: Record<InventorySort, { column: 'issued_at' | 'not_after'; descending: boolean }> = {
  '-issuedAt': { column: 'issued_at', descending: true },
  issuedAt: { column: 'issued_at', descending: false },
  expiresAt: { column: 'not_after', descending: false },
  '-expiresAt': { column: 'not_after', descending: true },
};

/** SQL conditions of a filter, with their parameters numbered after `params`. */
export function filterConditions(
  tenantId: string,
  filter: InventoryFilter,
  now: Date,
): { where: string; params: unknown[] } {
  const params: unknown[] = [tenantId];
  const p = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  const conditions = ['tenant_id = $1'];
  if (filter.status) {
    // Bound only when used: PostgreSQL cannot type a parameter no condition names.
    const at = filter.status.some((s) => s !== 'Revoked') ? p(now) : '';
    const byStatus = {
      Active: `(revoked_at IS NULL AND not_after > ${at})`,
      Expired: `(revoked_at IS NULL AND not_after <= ${at})`,
      Revoked: '(revoked_at IS NOT NULL)',
    };
    conditions.push(`(${filter.status.map((s) => byStatus[s]).join(' OR ')})`);
  }
  if (filter.q !== undefined) {
    // The same expression as the trigram index; LIKE's wildcards in `q` are taken literally.
    const pattern = `%${filter.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    conditions.push(
      `issuance.inventory_search_text(common_name, client_id, serial_number, dns_names) LIKE ${p(pattern)}`,
    );
  }
  if (filter.clientId !== undefined) conditions.push(`client_id = ${p(filter.clientId)}`);
  if (filter.caId !== undefined) conditions.push(`ca_id = ${p(filter.caId)}::uuid`);
  if (filter.usage !== undefined) conditions.push(`usage = ${p(filter.usage)}`);
  if (filter.source !== undefined) conditions.push(`source = ${p(filter.source)}`);
  if (filter.expiresBefore !== undefined) conditions.push(`not_after < ${p(filter.expiresBefore)}`);
  if (filter.expiresAfter !== undefined) conditions.push(`not_after > ${p(filter.expiresAfter)}`);
  if (filter.issuedBefore !== undefined) conditions.push(`issued_at < ${p(filter.issuedBefore)}`);
  if (filter.issuedAfter !== undefined) conditions.push(`issued_at > ${p(filter.issuedAfter)}`);
  return { where: conditions.join(' AND '), params };
}

/**
 * docs/api.md#search-certificates and docs/api.md#certificate-summary: the tenant's inventory in
 * keyset pages. A page starts after the previous one's last (sort value, id), both of which never
 * change once stored, so the cost of a page does not grow with its depth and a walk meets every
 * certificate that matches throughout it exactly once, while others are issued and revoked.
 */
export class CertificateInventory {
  private readonly cursors: InventoryCursors;

  constructor(private readonly dataSource: DataSource) {
    this.cursors = new InventoryCursors(dataSource);
  }

  async search(query: SearchCertificatesQuery): Promise<InventoryPage> {
    assertCommandFields(query, { tenantId: 'uuid' });
    const { filter, sort, limit, cursor } = parseInventoryQuery(query.parameters);
    const canonical = canonicalInventoryQuery(filter, sort);
    const after =
      cursor === undefined ? undefined : await this.cursors.decode(query.tenantId, canonical, cursor);
    const now = new Date();
    const rows = await this.page(query.tenantId, filter, sort, limit + 1, after, now);
    const more = rows.length > limit;
    const shown = more ? rows.slice(0, limit) : rows;
    const last = shown[shown.length - 1];
    return {
      certificates: shown.map((r) => inventoryItem(r, now)),
      nextCursor: more
        ? await this.cursors.encode(query.tenantId, canonical, { key: last.sort_key, id: last.id })
        : null,
    };
  }

  private page(
    tenantId: string,
    filter: InventoryFilter,
    sort: InventorySort,
    limit: number,
    after: KeysetPosition | undefined,
    now: Date,
  ): Promise<InventoryRow[]> {
    const { column, descending } = ORDERS[sort];
    const { where, params } = filterConditions(tenantId, filter, now);
    let keyset = '';
    if (after) {
      params.push(after.key, after.id);
      keyset = ` AND (${column}, id) ${descending ? '<' : '>'} ($${params.length - 1}::timestamptz, $${params.length}::uuid)`;
    }
    params.push(limit);
    const direction = descending ? 'DESC' : 'ASC';
    return this.dataSource.query(
      `SELECT id, client_id, common_name, serial_number, issued_at, not_after, revoked_at, dns_names,
              usage, ca_id, source,
              to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS sort_key
         FROM issuance.certificates
        WHERE ${where}${keyset}
        ORDER BY ${column} ${direction}, id ${direction}
        LIMIT $${params.length}`,
      params,
    );
  }

  /**
   * Counts read from two partial indexes (unrevoked by expiry, revoked by tenant): no certificate
   * row is visited, so a dashboard may poll it.
   */
  async summary(query: InventorySummaryQuery): Promise<InventorySummary> {
    assertCommandFields(query, { tenantId: 'uuid' });
    const now = new Date();
    const [unrevoked]: Record<string, string>[] = await this.dataSource.query(
      `SELECT count(*) FILTER (WHERE not_after > $2) AS active,
              count(*) FILTER (WHERE not_after <= $2) AS expired,
              count(*) FILTER (WHERE not_after > $2 AND not_after <= $3) AS within7,
              count(*) FILTER (WHERE not_after > $2 AND not_after <= $4) AS within30,
              count(*) FILTER (WHERE not_after > $2 AND not_after <= $5) AS within90
         FROM issuance.certificates WHERE tenant_id = $1 AND revoked_at IS NULL`,
      [query.tenantId, now, addDays(now, 7), addDays(now, 30), addDays(now, 90)],
    );
    const [revoked]: { count: string }[] = await this.dataSource.query(
      'SELECT count(*) AS count FROM issuance.certificates WHERE tenant_id = $1 AND revoked_at IS NOT NULL',
      [query.tenantId],
    );
    return {
      active: Number(unrevoked.active),
      revoked: Number(revoked.count),
      expired: Number(unrevoked.expired),
      expiringWithin: {
        '7': Number(unrevoked.within7),
        '30': Number(unrevoked.within30),
        '90': Number(unrevoked.within90),
      },
    };
  }
}

function inventoryItem(r: InventoryRow, now: Date): InventoryItem {
  return {
    certificateId: r.id,
    clientId: r.client_id,
    commonName: r.common_name,
    serialNumber: r.serial_number,
    status: statusOf({ revokedAt: r.revoked_at, notAfter: r.not_after }, now),
    issuedAt: r.issued_at.toISOString(),
    expiresAt: r.not_after.toISOString(),
    daysUntilExpiration: daysUntilExpiration(r.not_after, now),
    subjectAlternativeNames: r.dns_names,
    usage: r.usage,
    caId: r.ca_id,
    source: r.source,
    ...(r.revoked_at ? { revokedAt: r.revoked_at.toISOString() } : {}),
  };
}
