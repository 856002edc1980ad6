/** The inventory's filter, as the page's URL carries it (so a filtered view can be linked and reloaded). */
export interface InventoryFilter {
  q: string;
  status: string;
  /** '' (any), a number of days from now ('7', '30', '90', '365'), or 'past' (expiry already passed). */
  expiry: string;
  usage: string;
  caId: string;
  source: string;
  sort: string;
}

export const SORTS = ['-issuedAt', 'issuedAt', 'expiresAt', '-expiresAt'] as const;
const FIELDS: (keyof InventoryFilter)[] = ['q', 'status', 'expiry', 'usage', 'caId', 'source', 'sort'];

export function filterFromSearch(search: URLSearchParams): InventoryFilter {
  const filter = Object.fromEntries(
    FIELDS.map((f) => [f, search.get(f) ?? '']),
  ) as unknown as InventoryFilter;
  if (!(SORTS as readonly string[]).includes(filter.sort)) filter.sort = '';
  return filter;
}

export function searchOfFilter(filter: InventoryFilter): string {
  const search = new URLSearchParams();
  for (const field of FIELDS) if (filter[field]) search.set(field, filter[field]);
  const text = search.toString();
  return text ? `?${text}` : '';
}

const DAY_MS = 86_400_000;

/**
 * The parameters of GET /v2/certificates (docs/api.md#search-certificates) for a filter, without
 * sort, limit and cursor: the filter of POST /v2/certificates/revoke-matching too.
 */
export function apiFilter(filter: InventoryFilter, now: Date): Record<string, string> {
  const params: Record<string, string> = {};
  if (filter.q.trim()) params.q = filter.q.trim();
  if (filter.status) params.status = filter.status;
  if (filter.usage) params.usage = filter.usage;
  if (filter.caId) params.caId = filter.caId;
  if (filter.source) params.source = filter.source;
  if (filter.expiry === 'past') params.expiresBefore = now.toISOString();
  else if (/^\d+$/.test(filter.expiry)) {
    params.expiresAfter = now.toISOString();
    params.expiresBefore = new Date(now.getTime() + Number(filter.expiry) * DAY_MS).toISOString();
  }
  return params;
}

/** The search parameters of one page. */
export function pageQuery(
  filter: InventoryFilter,
  now: Date,
  limit: number,
  cursor?: string,
): Record<string, string> {
  return {
    ...apiFilter(filter, now),
    ...(filter.sort ? { sort: filter.sort } : {}),
    limit: String(limit),
    ...(cursor ? { cursor } : {}),
  };
}
