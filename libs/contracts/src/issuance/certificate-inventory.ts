import { CaError, FieldError } from '../common/ca-error';
import { CertificateStatus } from './certificate-status';
import { CertificateSummary } from './certificate-views';
import { parseUuid } from '../common/ids';

/** How a certificate's key reached the CA: made by the service (`api`), a caller's CSR, or an ACME order. */
export const CertificateSource = { Api: 'api', Csr: 'csr', Acme: 'acme' } as const;
export type CertificateSource = (typeof CertificateSource)[keyof typeof CertificateSource];

const USAGES = ['Client', 'Server', 'ClientAndServer'] as const;
const STATUSES = Object.values(CertificateStatus);
const SOURCES = Object.values(CertificateSource);

/** The list orders of docs/api.md#search-certificates; every one ends with the id, so ties never repeat a row. */
export const INVENTORY_SORTS = ['-issuedAt', 'issuedAt', 'expiresAt', '-expiresAt'] as const;
export type InventorySort = (typeof INVENTORY_SORTS)[number];

export const DEFAULT_INVENTORY_LIMIT = 100;
export const MAX_INVENTORY_LIMIT = 1000;
/** A `q` longer than any name it could match is refused rather than scanned for. */
const MAX_Q_LENGTH = 256;

/** The filter of docs/api.md#search-certificates, checked and normalized (combined with AND). */
export interface InventoryFilter {
  status?: CertificateStatus[];
  q?: string;
  clientId?: string;
  caId?: string;
  usage?: (typeof USAGES)[number];
  source?: CertificateSource;
  expiresBefore?: string;
  expiresAfter?: string;
  issuedBefore?: string;
  issuedAfter?: string;
}

export interface InventoryQuery {
  filter: InventoryFilter;
  sort: InventorySort;
  limit: number;
  cursor?: string;
}

/** An item of `GET /v2/certificates` and of the export. */
export interface InventoryItem extends CertificateSummary {
  subjectAlternativeNames: string[];
  usage: string;
  caId: string;
  source: CertificateSource;
  revokedAt?: string;
}

export interface InventoryPage {
  certificates: InventoryItem[];
  nextCursor: string | null;
}

export interface InventorySummary {
  active: number;
  revoked: number;
  expired: number;
  expiringWithin: { '7': number; '30': number; '90': number };
}

/** The request on the bus: the caller's query parameters as they arrived, checked by issuance. */
export interface SearchCertificatesQuery {
  tenantId: string;
  parameters: Record<string, unknown>;
}

/**
 * The formats of docs/api.md#export-certificates, and `v1`: the items of `GET /v1/certificates`
 * (CertificateSummary), each after a comma, for the gateway to put between `{"certificates":[`
 * and `]}`.
 */
export const INVENTORY_EXPORT_FORMATS = ['ndjson', 'csv', 'v1'] as const;
export type InventoryExportFormat = (typeof INVENTORY_EXPORT_FORMATS)[number];

/** One chunk of an export: `parameters` as for a search (a `cursor` to go on, no `limit`). */
export interface ExportCertificatesQuery {
  tenantId: string;
  parameters: Record<string, unknown>;
  format: InventoryExportFormat;
}

/**
 * Rows already written in the asked format (CSV: without its header row), as UTF-8 bytes (they
 * travel as bytes, not JSON: the bus's binary replies), and where to go on.
 */
export interface InventoryChunk {
  /** Sent as the database's parts, received as one Uint8Array (binary replies join them). */
  text: Uint8Array | readonly Uint8Array[];
  rows: number;
  nextCursor: string | null;
}

export interface InventorySummaryQuery {
  tenantId: string;
}

const FILTER_PARAMETERS = [
  'status',
  'q',
  'clientId',
  'caId',
  'usage',
  'source',
  'expiresBefore',
  'expiresAfter',
  'issuedBefore',
  'issuedAfter',
] as const;
const PAGING_PARAMETERS = ['sort', 'limit', 'cursor'] as const;
// RFC 3339 date-time: a full date, a time and an offset (Z or ±hh:mm).
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;

/**
 * Checks the list parameters (docs/api.md#search-certificates) as they came in a query string or
 * a filter object: each bad one is named in a VALIDATION_FAILED. `paging: false` (export, bulk
 * revocation) refuses sort, limit and cursor like any other unknown parameter.
 */
export function parseInventoryQuery(raw: unknown, paging = true): InventoryQuery {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw CaError.validation([{ field: 'filter', message: 'must be an object' }]);
  }
  const values = raw as Record<string, unknown>;
  const errors: FieldError[] = [];
  const known: readonly string[] = paging ? [...FILTER_PARAMETERS, ...PAGING_PARAMETERS] : FILTER_PARAMETERS;
  for (const name of Object.keys(values)) {
    if (!known.includes(name)) errors.push({ field: name, message: 'is not a parameter of this operation' });
  }
  const filter: InventoryFilter = {};
  const text = (name: string): string | undefined => {
    const value = values[name];
    if (value === undefined) return undefined;
    // `status=a&status=b` arrives as an array: one value per parameter (status takes a comma list).
    if (typeof value !== 'string' || value.length === 0) {
      errors.push({ field: name, message: 'must be a non-empty text, given once' });
      return undefined;
    }
    return value;
  };
  const oneOf = <T extends string>(name: string, allowed: readonly T[]): T | undefined => {
    const value = text(name);
    if (value === undefined) return undefined;
    if ((allowed as readonly string[]).includes(value)) return value as T;
    errors.push({ field: name, message: `must be one of ${allowed.join(', ')}` });
    return undefined;
  };
  const instant = (name: keyof InventoryFilter): void => {
    const value = text(name);
    if (value === undefined) return;
    const time = Date.parse(value);
    if (!RFC3339.test(value) || Number.isNaN(time)) {
      errors.push({ field: name, message: 'must be an RFC 3339 date-time, e.g. 2027-01-31T00:00:00Z' });
      return;
    }
    (filter as Record<string, string>)[name] = new Date(time).toISOString();
  };

  const status = text('status');
  if (status !== undefined) {
    const list = [...new Set(status.split(','))];
    if (list.every((s) => (STATUSES as string[]).includes(s))) {
      filter.status = STATUSES.filter((s) => list.includes(s));
    } else {
      errors.push({ field: 'status', message: `must be ${STATUSES.join(', ')} or several, comma-separated` });
    }
  }
  const q = text('q');
  if (q !== undefined) {
    // Control characters separate the searched fields in the index (inventory_search_text).
    if (q.length > MAX_Q_LENGTH || /[\u0000-\u001f\u007f]/.test(q)) {
      errors.push({
        field: 'q',
        message: `must be at most ${MAX_Q_LENGTH} characters, none a control character`,
      });
    } else filter.q = q.toLowerCase();
  }
  const clientId = text('clientId');
  if (clientId !== undefined) filter.clientId = clientId;
  const caId = text('caId');
  if (caId !== undefined) {
    const id = parseUuid(caId);
    if (id) filter.caId = id;
    else errors.push({ field: 'caId', message: 'must be a UUID' });
  }
  const usage = oneOf('usage', USAGES);
  if (usage) filter.usage = usage;
  const source = oneOf('source', SOURCES);
  if (source) filter.source = source;
  for (const name of ['expiresBefore', 'expiresAfter', 'issuedBefore', 'issuedAfter'] as const) instant(name);

  let sort: InventorySort = '-issuedAt';
  let limit = DEFAULT_INVENTORY_LIMIT;
  let cursor: string | undefined;
  if (paging) {
    sort = oneOf('sort', INVENTORY_SORTS) ?? sort;
    const rawLimit = text('limit');
    if (rawLimit !== undefined) {
      const n = /^\d{1,4}$/.test(rawLimit) ? Number(rawLimit) : NaN;
      if (n >= 1 && n <= MAX_INVENTORY_LIMIT) limit = n;
      else
        errors.push({ field: 'limit', message: `must be a whole number from 1 to ${MAX_INVENTORY_LIMIT}` });
    }
    cursor = text('cursor');
  }
  if (errors.length > 0) throw CaError.validation(errors);
  return { filter, sort, limit, ...(cursor !== undefined ? { cursor } : {}) };
}

/** The filter and order as one canonical string: what a cursor is bound to. */
export function canonicalInventoryQuery(filter: InventoryFilter, sort: InventorySort): string {
  const entries = FILTER_PARAMETERS.filter((name) => filter[name] !== undefined).map((name) => [
    name,
    filter[name],
  ]);
  return JSON.stringify([sort, entries]);
}

/** docs/api.md#revoke-matching: the body, checked by issuance (`filter` as the list parameters). */
export interface RevokeMatchingCommand {
  tenantId: string;
  principal: string;
  requestId?: string;
  request: unknown;
}

export type RevokeMatchingResult = { matched: number } | { jobId: string; matched: number };

export interface RevocationJobQuery {
  tenantId: string;
  jobId: string;
}

/**
 * The certificates a job has revoked, in the order their revocations became visible, from
 * `after` (a position this answer gave): for the gateway to audit each one as a single revocation
 * is audited. `next` is where to go on; `finished`: the job has ended and nothing is left to read.
 */
export interface JobRevocationsQuery {
  tenantId: string;
  jobId: string;
  after?: string;
  limit: number;
}

export interface JobRevocations {
  revocations: { certificateId: string; revokedAt: string }[];
  next: string | null;
  finished: boolean;
}

/** docs/api.md#jobs */
export interface RevocationJobView {
  jobId: string;
  kind: 'revoke-matching';
  status: 'running' | 'done' | 'failed';
  total: number;
  done: number;
  failed: number;
  /** Why the job stopped, when its status is `failed`. */
  error?: string;
}
