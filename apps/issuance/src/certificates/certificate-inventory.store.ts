import { CertificateSource, InventoryExportFormat, InventoryFilter, InventorySort } from '@ca/contracts';
import { EntityManager } from 'typeorm';
import { SEARCH_BY_TENANT_INDEX } from '../migrations/1767970000000-index-certificate-search-by-tenant';
import { KeysetPosition } from './inventory-cursor';

/** A row of a search page, and where it stands in the order (`sort_key`). */
export interface InventoryRow {
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

/** The size of the strings an export chunk is read in (exportChunk): well under V8's 128 KiB. */
const EXPORT_PART_BYTES = 32 * 1024;

/** Certificates a `q` search filters in the order before it turns to the trigram index. */
const Q_PROBE_ROWS = 5000;

/** A timestamp as JavaScript's toISOString writes it (milliseconds, UTC). */
const iso = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const json = (text: string) => `to_json(${text})::text`;
/** RFC 4180: quoted (quotes doubled) when it holds a comma, a quote or a line break. */
const csv = (text: string) =>
  `CASE WHEN strpos(${text}, ',') > 0 OR strpos(${text}, '"') > 0 OR strpos(${text}, chr(10)) > 0
             OR strpos(${text}, chr(13)) > 0
        THEN '"' || replace(${text}, '"', '""') || '"' ELSE ${text} END`;
const status = (now: string) =>
  `CASE WHEN revoked_at IS NOT NULL THEN 'Revoked' WHEN not_after <= ${now} THEN 'Expired' ELSE 'Active' END`;
/** daysUntilExpiration: whole days, rounded down, never below 0 (docs/certificate-profile.md). */
const days = (now: string) =>
  `GREATEST(0, floor(extract(epoch FROM (not_after - ${now})) * 1000 / 86400000))::bigint::text`;
/** The CertificateSummary fields, as JSON members in the order JSON.stringify writes them. */
const summaryMembers = (now: string) =>
  `'{"certificateId":"' || id || '","clientId":' || ${json('client_id')} ||
   ',"commonName":' || ${json('common_name')} || ',"serialNumber":' || ${json('serial_number')} ||
   ',"status":"' || ${status(now)} || '","issuedAt":"' || ${iso('issued_at')} ||
   '","expiresAt":"' || ${iso('not_after')} || '","daysUntilExpiration":' || ${days(now)}`;

/** The SQL of one exported row per format (`now` is a parameter). */
const EXPORT_LINES: Record<InventoryExportFormat, (now: string) => string> = {
  ndjson: (now) =>
    `${summaryMembers(now)} || ',"subjectAlternativeNames":' || ${json('dns_names')} ||
     ',"usage":' || ${json('usage')} || ',"caId":"' || ca_id || '","source":' || ${json('source')} ||
     CASE WHEN revoked_at IS NULL THEN '' ELSE ',"revokedAt":"' || ${iso('revoked_at')} || '"' END ||
     '}' || chr(10)`,
  csv: (now) =>
    `id || ',' || ${csv('client_id')} || ',' || ${csv('common_name')} || ',' || ${csv('serial_number')} ||
     ',' || ${status(now)} || ',' || ${iso('issued_at')} || ',' || ${iso('not_after')} || ',' || ${days(now)} ||
     ',' || ${csv("array_to_string(dns_names, ' ')")} || ',' || ${csv('usage')} || ',' || ca_id ||
     ',' || ${csv('source')} || ',' || coalesce(${iso('revoked_at')}, '') || chr(13) || chr(10)`,
  v1: (now) => `',' || ${summaryMembers(now)} || '}'`,
};

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
  trigramOnly = false,
): { where: string; params: unknown[] } {
  const params: unknown[] = [tenantId];
  const p = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  // `trigramOnly`: the same condition, in a form no index on tenant_id serves, so that only the
  // trigram index of all tenants can drive the scan (CertificateInventory.ordered), where the
  // index of the tenant's trigrams is missing.
  const conditions = [trigramOnly ? '(tenant_id = $1) IS TRUE' : 'tenant_id = $1'];
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

/** An export chunk as the database wrote it (CertificateInventoryStore.exportChunk). */
export interface ExportChunkRow {
  /** The lines, in order, as UTF-8 in parts of about EXPORT_PART_BYTES. */
  parts: Buffer[];
  matched: number;
  last: KeysetPosition | undefined;
}

/** Unrevoked and revoked certificates, and the unrevoked ones whose notAfter is after each bound. */
export interface InventoryCounts {
  unrevoked: number;
  revoked: number;
  after: number[];
}

/**
 * The tenant's inventory in `issuance.certificates` (docs/architecture.md#inventory-search): keyset
 * pages of a filter in an order, the same written by the database as export lines, and the counts
 * of the summary.
 */
export abstract class CertificateInventoryStore {
  /** The first `limit` matches after `after` in the order. */
  abstract page(
    tenantId: string,
    filter: InventoryFilter,
    sort: InventorySort,
    limit: number,
    after: KeysetPosition | undefined,
    now: Date,
  ): Promise<InventoryRow[]>;
  /**
   * The first `limit` matches written as export lines, as UTF-8 bytes in a few parts (`parts`), how
   * many matched up to `limit + 1` (`matched`: more than `limit` means the export goes on), and
   * the position of the last one written.
   */
  abstract exportChunk(
    format: InventoryExportFormat,
    tenantId: string,
    filter: InventoryFilter,
    sort: InventorySort,
    limit: number,
    after: KeysetPosition | undefined,
    now: Date,
  ): Promise<ExportChunkRow>;
  /** The counts at `bounds` (the first is now), in one statement. */
  abstract counts(tenantId: string, bounds: readonly Date[]): Promise<InventoryCounts>;
}

export class SqlCertificateInventoryStore extends CertificateInventoryStore {
  private tenantIndex?: Promise<boolean>;

  constructor(private readonly db: EntityManager) {
    super();
  }

  page(
    tenantId: string,
    filter: InventoryFilter,
    sort: InventorySort,
    limit: number,
    after: KeysetPosition | undefined,
    now: Date,
  ): Promise<InventoryRow[]> {
    return this.ordered<InventoryRow>(
      () =>
        'id, client_id, common_name, serial_number, issued_at, not_after, revoked_at, dns_names, usage, ca_id, source',
      tenantId,
      filter,
      sort,
      limit,
      after,
      now,
    );
  }

  /**
   * The chunk's lines joined by the database (string_agg, in the order of the page) into `bytea`
   * parts of about EXPORT_PART_BYTES. `pg` turns each part into a Buffer as it reads its row, so
   * no string of the rows outlives its message: a thousand row strings per chunk lived until the
   * whole result had arrived, long enough to be promoted to V8's old space as garbage, and a
   * string over 128 KiB (the hex text a part is read as is twice its bytes) is a large object,
   * made in or moved to the old space (docs/benchmarks.md, export memory). `row_number() OVER ()`
   * numbers the rows in the order the page returns them (its ORDER BY); `n` keeps that order.
   */
  async exportChunk(
    format: InventoryExportFormat,
    tenantId: string,
    filter: InventoryFilter,
    sort: InventorySort,
    limit: number,
    after: KeysetPosition | undefined,
    now: Date,
  ): Promise<ExportChunkRow> {
    const parts = await this.ordered<{
      text: Buffer;
      matched: number;
      id: string | null;
      sort_key: string | null;
    }>(
      (p) => `${EXPORT_LINES[format](p(now))} AS line, id`,
      tenantId,
      filter,
      sort,
      limit + 1,
      after,
      now,
      (page, p) => {
        const last = p(limit);
        return `WITH numbered AS MATERIALIZED (SELECT page.*, row_number() OVER () AS n FROM (${page}) page),
             kept AS (
               SELECT line, n, (sum(octet_length(line)) OVER (ORDER BY n) - octet_length(line)) / ${p(EXPORT_PART_BYTES)} AS part
                 FROM numbered WHERE n <= ${last})
           SELECT convert_to(string_agg(line, '' ORDER BY n), 'UTF8') AS text,
                  (SELECT count(*) FROM numbered)::int AS matched,
                  (SELECT id::text FROM numbered WHERE n = ${last}) AS id,
                  (SELECT sort_key FROM numbered WHERE n = ${last}) AS sort_key
             FROM kept GROUP BY part ORDER BY part`;
      },
      (rows) => (rows[0]?.matched ?? 0) > limit,
    );
    const first = parts[0];
    return {
      parts: parts.map((part) => part.text),
      matched: first?.matched ?? 0,
      last: first?.id && first.sort_key ? { key: first.sort_key, id: first.id } : undefined,
    };
  }

  /**
   * The first `limit` matches after `after` in the order, with `select` (which may bind
   * parameters through `p`) and their `sort_key`.
   *
   * A `q` search is read in one of two ways, because how many certificates a substring matches
   * is what the planner cannot know (it may be "host", matching all, or a serial fragment matching
   * a few hundred in a million): first the next Q_PROBE_ROWS certificates in the order are
   * filtered (bounded work: enough when matches are dense); only when that does not fill the page
   * are the matches taken from the trigram index (bitmap scans only, the tenant's ordered indexes
   * out of the plan), which costs what the matches cost when they are sparse. Without `q` the
   * planner chooses, from statistics it has.
   */
  private async ordered<T>(
    select: (p: (value: unknown) => string) => string,
    tenantId: string,
    filter: InventoryFilter,
    sort: InventorySort,
    limit: number,
    after: KeysetPosition | undefined,
    now: Date,
    wrap: (page: string, p: (value: unknown) => string) => string = (page) => page,
    filled: (rows: T[]) => boolean = (rows) => rows.length >= limit,
  ): Promise<T[]> {
    const { column, descending } = ORDERS[sort];
    const direction = descending ? 'DESC' : 'ASC';
    const order = `ORDER BY ${column} ${direction}, id ${direction}`;
    const sql = (strategy: 'plain' | 'probe' | 'trigram', tenantInIndex = false) => {
      const { where, params } = filterConditions(
        tenantId,
        filter,
        now,
        strategy === 'trigram' && !tenantInIndex,
      );
      const p = (value: unknown) => {
        params.push(value);
        return `$${params.length}`;
      };
      const columns = `${select(p)},
              to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS sort_key`;
      const keyset = after
        ? ` AND (${column}, id) ${descending ? '<' : '>'} (${p(after.key)}::timestamptz, ${p(after.id)}::uuid)`
        : '';
      if (strategy === 'probe') {
        // The tenant's next rows in the order, then the filter over them.
        const text = `SELECT ${columns} FROM (
             SELECT * FROM issuance.certificates WHERE tenant_id = $1${keyset} ${order} LIMIT ${p(Q_PROBE_ROWS)}
           ) certificates
          WHERE ${where} ${order} LIMIT ${p(limit)}`;
        return { text: wrap(text, p), params };
      }
      const text = `SELECT ${columns} FROM issuance.certificates WHERE ${where}${keyset} ${order} LIMIT ${p(limit)}`;
      return { text: wrap(text, p), params };
    };
    if (filter.q === undefined) {
      const { text, params } = sql('plain');
      return this.db.query(text, params);
    }
    const probe = sql('probe');
    const dense: T[] = await this.db.query(probe.text, probe.params);
    if (filled(dense)) return dense;
    const tenantInIndex = await this.searchIndexHasTenant();
    return this.db.transaction(async (manager) => {
      await manager.query('SET LOCAL enable_seqscan = off');
      await manager.query('SET LOCAL enable_indexscan = off');
      const { text, params } = sql('trigram', tenantInIndex);
      return manager.query(text, params);
    });
  }

  /**
   * Whether the trigram index holds the tenant too (SEARCH_BY_TENANT_INDEX, built where btree_gin
   * is available): then the tenant condition goes to it as is, and it reads the tenant's entries
   * only; otherwise the condition is kept out of the index conditions (filterConditions). Asked
   * once per process.
   */
  private searchIndexHasTenant(): Promise<boolean> {
    this.tenantIndex ??= this.db
      .query(
        `SELECT 1 FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
          JOIN pg_namespace n ON n.oid = c.relnamespace
          WHERE n.nspname = 'issuance' AND c.relname = $1 AND i.indisvalid`,
        [SEARCH_BY_TENANT_INDEX],
      )
      .then(
        (rows: unknown[]) => rows.length > 0,
        (error: unknown) => {
          this.tenantIndex = undefined;
          throw error;
        },
      );
    return this.tenantIndex;
  }

  /**
   * From the per-day counters (issuance.inventory_counts, kept by a trigger): the days after each
   * bound are added up, and only the unrevoked certificates of the bound's own UTC day are counted
   * in the index of unrevoked certificates by expiry. One statement, one snapshot: exact, and its
   * cost is the tenant's days of expiry plus four days of certificates, not the whole inventory.
   */
  async counts(tenantId: string, bounds: readonly Date[]): Promise<InventoryCounts> {
    const params: unknown[] = [tenantId];
    const p = (value: unknown) => {
      params.push(value);
      return `$${params.length}`;
    };
    // Unrevoked certificates whose notAfter is after the bound: the days after its day, and the
    // certificates of its own day after it.
    const days: string[] = [];
    const edges: string[] = [];
    bounds.forEach((bound, i) => {
      const day = utcDay(bound);
      days.push(
        `coalesce(sum(unrevoked) FILTER (WHERE expiry_day > ${p(isoDate(day))}::date), 0) AS days${i}`,
      );
      edges.push(`(SELECT count(*) FROM issuance.certificates
                    WHERE tenant_id = $1 AND revoked_at IS NULL
                      AND not_after > ${p(bound)} AND not_after < ${p(new Date(day.getTime() + DAY_MS))}) AS edge${i}`);
    });
    const [counts]: Record<string, string>[] = await this.db.query(
      `SELECT coalesce(sum(unrevoked), 0) AS unrevoked, coalesce(sum(revoked), 0) AS revoked,
              ${[...days, ...edges].join(',\n')}
         FROM issuance.inventory_counts WHERE tenant_id = $1`,
      params,
    );
    return {
      unrevoked: Number(counts.unrevoked),
      revoked: Number(counts.revoked),
      after: bounds.map((_, i) => Number(counts[`days${i}`]) + Number(counts[`edge${i}`])),
    };
  }
}

const DAY_MS = 86_400_000;

function utcDay(at: Date): Date {
  return new Date(Math.floor(at.getTime() / DAY_MS) * DAY_MS);
}

function isoDate(day: Date): string {
  return day.toISOString().slice(0, 10);
}
