import {
  CaError,
  ExportCertificatesQuery,
  INVENTORY_EXPORT_FORMATS,
  InventoryChunk,
  InventoryItem,
  InventoryPage,
  InventorySummary,
  InventorySummaryQuery,
  SearchCertificatesQuery,
  assertCommandFields,
  canonicalInventoryQuery,
  parseInventoryQuery,
} from '@ca/contracts';
import { addDays, daysUntilExpiration, statusOf } from './certificate-lifecycle';
import { CertificateInventoryStore, InventoryRow } from './certificate-inventory.store';
import { InventoryCursorKeyStore } from './inventory-cursor-key.store';
import { InventoryCursors } from './inventory-cursor';
import { handedOn } from '@ca/runtime';

/** Rows per export chunk: about half a megabyte of NDJSON, under the bus's inline reply size. */
export const EXPORT_CHUNK_ROWS = 1000;

/**
 * docs/api.md#search-certificates and docs/api.md#certificate-summary: the tenant's inventory in
 * keyset pages. A page starts after the previous one's last (sort value, id), both of which never
 * change once stored, so the cost of a page does not grow with its depth and a walk meets every
 * certificate that matches throughout it exactly once, while others are issued and revoked.
 */
export class CertificateInventory {
  private readonly cursors: InventoryCursors;

  constructor(
    private readonly store: CertificateInventoryStore,
    cursorKeys: InventoryCursorKeyStore,
  ) {
    this.cursors = new InventoryCursors(cursorKeys);
  }

  async search(query: SearchCertificatesQuery): Promise<InventoryPage> {
    assertCommandFields(query, { tenantId: 'uuid' });
    const { filter, sort, limit, cursor } = parseInventoryQuery(query.parameters);
    const canonical = canonicalInventoryQuery(filter, sort);
    const after =
      cursor === undefined ? undefined : await this.cursors.decode(query.tenantId, canonical, cursor);
    const now = new Date();
    const rows = await this.store.page(query.tenantId, filter, sort, limit + 1, after, now);
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

  /**
   * docs/api.md#export-certificates: the next EXPORT_CHUNK_ROWS matches, written by the database
   * itself as NDJSON, CSV rows or `GET /v1/certificates` items (one text value per row, the same
   * fields and values as a search item), so that neither this service nor the gateway makes an
   * object per certificate. Keyset-paged like a search; its cursor is a search cursor. The rows
   * travel as bytes (docs/architecture.md, "Export"): no copy of them stays on the V8 heap.
   */
  async exportChunk(query: ExportCertificatesQuery): Promise<InventoryChunk> {
    assertCommandFields(query, { tenantId: 'uuid' });
    if (!(INVENTORY_EXPORT_FORMATS as readonly unknown[]).includes(query.format)) {
      throw CaError.validation([
        { field: 'format', message: `one of ${INVENTORY_EXPORT_FORMATS.join(', ')}` },
      ]);
    }
    const parameters = query.parameters;
    if (typeof parameters === 'object' && parameters !== null && 'limit' in parameters) {
      throw CaError.validation([
        { field: 'limit', message: 'the export has every match; it takes no limit' },
      ]);
    }
    const { filter, sort, cursor } = parseInventoryQuery(parameters);
    const canonical = canonicalInventoryQuery(filter, sort);
    const after =
      cursor === undefined ? undefined : await this.cursors.decode(query.tenantId, canonical, cursor);
    const now = new Date();
    const chunk = await this.store.exportChunk(
      query.format,
      query.tenantId,
      filter,
      sort,
      EXPORT_CHUNK_ROWS,
      after,
      now,
    );
    const more = chunk.matched > EXPORT_CHUNK_ROWS && chunk.last !== undefined;
    handedOn(chunk.parts.reduce((bytes, part) => bytes + part.byteLength, 0));
    return {
      // Joined once, by the bus as it writes the reply.
      text: chunk.parts.length === 0 ? Buffer.alloc(0) : chunk.parts,
      rows: Math.min(chunk.matched, EXPORT_CHUNK_ROWS),
      nextCursor: more ? await this.cursors.encode(query.tenantId, canonical, chunk.last!) : null,
    };
  }

  /** From the per-day counters and the bounds' own days (CertificateInventoryStore.counts). */
  async summary(query: InventorySummaryQuery): Promise<InventorySummary> {
    assertCommandFields(query, { tenantId: 'uuid' });
    const now = new Date();
    const bounds = [now, addDays(now, 7), addDays(now, 30), addDays(now, 90)];
    const counts = await this.store.counts(query.tenantId, bounds);
    const active = counts.after[0];
    return {
      active,
      revoked: counts.revoked,
      expired: counts.unrevoked - active,
      expiringWithin: {
        '7': active - counts.after[1],
        '30': active - counts.after[2],
        '90': active - counts.after[3],
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
