import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ApiError, api, call, download, query } from '../api';
import { InventoryFilter, apiFilter, filterFromSearch, pageQuery, searchOfFilter } from '../filters';
import { BASE, navigate } from '../router';
import { useRowWindow } from '../use-row-window';
import { Session } from '../session';
import {
  Dialog,
  Empty,
  Loading,
  Problem,
  REASON_CODES,
  StatusBadge,
  formatDay,
  useAction,
  useLoad,
} from '../ui';
import { CaEntry, CertificateItem, Page } from './types';

const PAGE_SIZE = 200;
/** The next page is fetched when the rendered window comes this close to the last fetched row. */
const PREFETCH_ROWS = 100;
/** Search as you type: the query is sent once typing pauses this long. */
const TYPING_PAUSE_MS = 250;

interface Walk {
  items: CertificateItem[];
  cursor: string | null;
  loading: boolean;
  error?: ApiError;
}

/**
 * Stands for rows outside the rendered window. Its height is set through the CSSOM (a style
 * property, which the Content-Security-Policy's style-src does not govern), never a style attribute.
 */
function Spacer({ height }: { height: number }) {
  const cell = useRef<HTMLTableCellElement>(null);
  useLayoutEffect(() => {
    if (cell.current) cell.current.style.height = `${height}px`;
  }, [height]);
  return (
    <tr class="spacer" aria-hidden="true">
      <td colSpan={7} ref={cell} />
    </tr>
  );
}

function SortHeader({
  label,
  field,
  filter,
  onSort,
}: {
  label: string;
  field: 'issuedAt' | 'expiresAt';
  filter: InventoryFilter;
  onSort: (sort: string) => void;
}) {
  const current = filter.sort || '-issuedAt';
  const direction = current === field ? 'ascending' : current === `-${field}` ? 'descending' : 'none';
  const next = direction === 'descending' ? field : `-${field}`;
  return (
    <th scope="col" aria-sort={direction}>
      <button type="button" class="sort" onClick={() => onSort(next)}>
        {label}
        <span aria-hidden="true">
          {direction === 'ascending' ? ' ▲' : direction === 'descending' ? ' ▼' : ''}
        </span>
      </button>
    </th>
  );
}

function BulkRevoke({
  session,
  filter,
  now,
  onDone,
}: {
  session: Session;
  filter: InventoryFilter;
  now: Date;
  onDone: () => void;
}) {
  const [open, setOpen] = useState(false);
  const [matched, setMatched] = useState<number>();
  const [reason, setReason] = useState('');
  const [reasonCode, setReasonCode] = useState('Unspecified');
  const [confirmed, setConfirmed] = useState(false);
  const [progress, setProgress] = useState<{ total: number; done: number; failed: number; status: string }>();
  const count = useAction();
  const revoke = useAction();
  const body = { filter: apiFilter(filter, now), reason, reasonCode };

  const start = () => {
    setOpen(true);
    setMatched(undefined);
    setConfirmed(false);
    setProgress(undefined);
    void count.run(async () => {
      const answer = await api<{ matched: number }>(session, 'POST', '/v2/certificates/revoke-matching', {
        body: { ...body, reason: 'count', dryRun: true },
      });
      setMatched(answer.matched);
    });
  };
  const submit = (event: Event) => {
    event.preventDefault();
    void revoke.run(async () => {
      const job = await api<{ jobId: string; matched: number }>(
        session,
        'POST',
        '/v2/certificates/revoke-matching',
        {
          body: { ...body, expectedCount: matched },
        },
      );
      for (;;) {
        const state = await api<{ status: string; total: number; done: number; failed: number }>(
          session,
          'GET',
          `/v2/jobs/${encodeURIComponent(job.jobId)}`,
        );
        setProgress(state);
        if (state.status !== 'running') break;
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      onDone();
    });
  };
  const canRevoke = session.scopes.includes('ca:admin');
  return (
    <>
      <button
        type="button"
        class="danger"
        onClick={start}
        disabled={!canRevoke}
        title={canRevoke ? undefined : 'Needs the ca:admin scope'}
      >
        Revoke all matching…
      </button>
      <Dialog title="Revoke every matching certificate" open={open} onClose={() => setOpen(false)}>
        {count.pending && <Loading what="the number of matching certificates" />}
        {count.error && <Problem error={count.error} />}
        {matched === 0 && <p>No certificate that is not revoked yet matches this filter.</p>}
        {matched !== undefined && matched > 0 && !progress && (
          <form onSubmit={submit}>
            <p data-testid="bulk-revoke-count">
              <strong>{matched.toLocaleString('en')}</strong> certificate{matched === 1 ? '' : 's'} match this
              filter and will be revoked.
            </p>
            <label for="bulk-reason">Reason (kept in the audit log)</label>
            <input
              id="bulk-reason"
              required
              maxLength={255}
              value={reason}
              onInput={(e) => setReason((e.target as HTMLInputElement).value)}
            />
            <label for="bulk-reason-code">Reason code</label>
            <select
              id="bulk-reason-code"
              value={reasonCode}
              onChange={(e) => setReasonCode((e.target as HTMLSelectElement).value)}
            >
              {REASON_CODES.map((code) => (
                <option key={code}>{code}</option>
              ))}
            </select>
            <label class="check">
              <input
                type="checkbox"
                data-testid="bulk-revoke-confirm-check"
                checked={confirmed}
                onChange={(e) => setConfirmed((e.target as HTMLInputElement).checked)}
              />
              I understand that revoking these {matched.toLocaleString('en')} certificates cannot be undone
              {reasonCode === 'CertificateHold' ? ' (except by releasing the hold)' : ''}.
            </label>
            {revoke.error && <Problem error={revoke.error} />}
            <div class="actions">
              <button type="button" onClick={() => setOpen(false)}>
                Cancel
              </button>
              <button
                type="submit"
                class="danger"
                data-testid="bulk-revoke-confirm"
                disabled={!confirmed || revoke.pending}
              >
                Revoke {matched.toLocaleString('en')}
              </button>
            </div>
          </form>
        )}
        {progress && (
          <div role="status" data-testid="bulk-revoke-progress">
            <progress max={progress.total} value={progress.done + progress.failed} />
            <p>
              {progress.status === 'running'
                ? 'Revoking…'
                : progress.status === 'done'
                  ? 'Done.'
                  : 'The job failed.'}{' '}
              {progress.done} revoked, {progress.failed} failed, of {progress.total}.
            </p>
            <button type="button" onClick={() => setOpen(false)}>
              Close
            </button>
          </div>
        )}
        {(matched === 0 || count.error) && (
          <button type="button" onClick={() => setOpen(false)}>
            Close
          </button>
        )}
      </Dialog>
    </>
  );
}

export function CertificatesPage({ session, search }: { session: Session; search: URLSearchParams }) {
  const filter = filterFromSearch(search);
  const filterKey = searchOfFilter(filter);
  const [typed, setTyped] = useState(filter.q);
  // One instant for a whole walk: "expires within N days" must stay the same query page after page.
  const now = useMemo(() => new Date(), [filterKey]);
  const [walk, setWalk] = useState<Walk>({ items: [], cursor: null, loading: true });
  const [tick, setTick] = useState(0);
  const body = useRef<HTMLTableSectionElement>(null);
  const rows = useRowWindow(walk.items.length, body);
  const exporting = useAction();
  const [cas] = useLoad(
    () =>
      session.scopes.includes('ca:admin')
        ? api<{ cas: CaEntry[] }>(session, 'GET', '/v2/ca')
        : Promise.resolve({ cas: [] }),
    [session],
  );

  const setFilter = (change: Partial<InventoryFilter>) =>
    navigate(`${BASE}/certificates${searchOfFilter({ ...filter, ...change })}`, true);

  // The box follows the URL only when someone else changed its `q` (a link, back, a reload): the `q`
  // this page wrote after a pause must not take back keystrokes typed since.
  const wroteQ = useRef(filter.q);
  useEffect(() => {
    if (filter.q !== wroteQ.current) setTyped((wroteQ.current = filter.q));
  }, [filter.q]);
  useEffect(() => {
    if (typed === filter.q) return;
    const timer = setTimeout(() => setFilter({ q: (wroteQ.current = typed) }), TYPING_PAUSE_MS);
    return () => clearTimeout(timer);
  }, [typed]);

  // Answers of a walk the filter has since replaced are dropped (a newer walk started).
  const generation = useRef(0);
  const loadPage = async (cursor: string | null, replace: boolean) => {
    if (replace) generation.current++;
    const mine = generation.current;
    setWalk((w) => ({ ...(replace ? { items: [], cursor: null } : w), loading: true, error: undefined }));
    try {
      const page = await api<Page>(
        session,
        'GET',
        `/v2/certificates${query(pageQuery(filter, now, PAGE_SIZE, cursor ?? undefined))}`,
      );
      if (mine !== generation.current) return;
      setWalk((w) => ({
        items: replace ? page.certificates : [...w.items, ...page.certificates],
        cursor: page.nextCursor,
        loading: false,
      }));
    } catch (error) {
      if (mine !== generation.current) return;
      setWalk((w) => ({ ...w, loading: false, error: error as ApiError }));
    }
  };

  useEffect(() => {
    void loadPage(null, true);
  }, [filterKey, session, tick]);

  // Scrolling near the end of what was fetched fetches the next page (the `nextCursor` of the last).
  const nearEnd = rows.last >= walk.items.length - PREFETCH_ROWS;
  useEffect(() => {
    if (nearEnd && walk.cursor && !walk.loading && !walk.error) void loadPage(walk.cursor, false);
  }, [nearEnd, walk.cursor, walk.loading, walk.error]);

  const exportCsv = () =>
    exporting.run(async () => {
      const params = { ...apiFilter(filter, now), ...(filter.sort ? { sort: filter.sort } : {}) };
      const response = await call(session, 'GET', `/v2/certificates/export${query(params)}`, {
        accept: 'text/csv',
      });
      download(`certificates-${formatDay(now)}.csv`, await response.blob());
    });

  const caOptions =
    cas.state === 'done' ? cas.value.cas.filter((c) => c.role === 'issuing' || c.state !== 'pending') : [];
  return (
    <>
      <h1>Certificates</h1>
      <form class="filters" role="search" onSubmit={(e) => e.preventDefault()}>
        <div class="field grow">
          <label for="search">Search</label>
          <input
            id="search"
            type="search"
            data-testid="search"
            placeholder="Common name, client id, DNS name or serial"
            value={typed}
            onInput={(e) => setTyped((e.target as HTMLInputElement).value)}
            autoComplete="off"
          />
        </div>
        <div class="field">
          <label for="status-filter">Status</label>
          <select
            id="status-filter"
            data-testid="status-filter"
            value={filter.status}
            onChange={(e) => setFilter({ status: (e.target as HTMLSelectElement).value })}
          >
            <option value="">Any</option>
            <option>Active</option>
            <option>Revoked</option>
            <option>Expired</option>
          </select>
        </div>
        <div class="field">
          <label for="expiry-filter">Expires</label>
          <select
            id="expiry-filter"
            data-testid="expiry-filter"
            value={filter.expiry}
            onChange={(e) => setFilter({ expiry: (e.target as HTMLSelectElement).value })}
          >
            <option value="">Any time</option>
            <option value="7">Within 7 days</option>
            <option value="30">Within 30 days</option>
            <option value="90">Within 90 days</option>
            <option value="365">Within a year</option>
            <option value="past">Already passed</option>
          </select>
        </div>
        <div class="field">
          <label for="usage-filter">Usage</label>
          <select
            id="usage-filter"
            data-testid="usage-filter"
            value={filter.usage}
            onChange={(e) => setFilter({ usage: (e.target as HTMLSelectElement).value })}
          >
            <option value="">Any</option>
            <option>Client</option>
            <option>Server</option>
            <option>ClientAndServer</option>
          </select>
        </div>
        <div class="field">
          <label for="ca-filter">Issuing CA</label>
          <select
            id="ca-filter"
            data-testid="ca-filter"
            value={filter.caId}
            onChange={(e) => setFilter({ caId: (e.target as HTMLSelectElement).value })}
          >
            <option value="">Any</option>
            {caOptions.map((ca) => (
              <option key={ca.caId} value={ca.caId}>
                {ca.subject} ({ca.role}, {ca.state})
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="source-filter">Source</label>
          <select
            id="source-filter"
            data-testid="source-filter"
            value={filter.source}
            onChange={(e) => setFilter({ source: (e.target as HTMLSelectElement).value })}
          >
            <option value="">Any</option>
            <option value="api">API (key made here)</option>
            <option value="csr">CSR</option>
            <option value="acme">ACME</option>
          </select>
        </div>
      </form>
      <div class="toolbar">
        <p role="status" aria-live="polite" data-testid="result-count">
          {walk.items.length.toLocaleString('en')} shown{walk.cursor ? ', more as you scroll' : ''}
        </p>
        <button type="button" onClick={exportCsv} disabled={exporting.pending}>
          {exporting.pending ? 'Exporting…' : 'Export CSV'}
        </button>
        <BulkRevoke session={session} filter={filter} now={now} onDone={() => setTick((n) => n + 1)} />
      </div>
      {exporting.error && <Problem error={exporting.error} />}
      {walk.items.length > 0 && (
        <table class="inventory" aria-rowcount={walk.cursor ? -1 : walk.items.length + 1}>
          <thead>
            <tr aria-rowindex={1}>
              <th scope="col">Common name</th>
              <th scope="col">Client id</th>
              <th scope="col">Serial number</th>
              <th scope="col">Status</th>
              <th scope="col">Usage</th>
              <SortHeader
                label="Issued"
                field="issuedAt"
                filter={filter}
                onSort={(sort) => setFilter({ sort })}
              />
              <SortHeader
                label="Expires"
                field="expiresAt"
                filter={filter}
                onSort={(sort) => setFilter({ sort })}
              />
            </tr>
          </thead>
          <tbody ref={body}>
            {rows.first > 0 && <Spacer height={rows.first * rows.rowHeight} />}
            {walk.items.slice(rows.first, rows.last).map((c, i) => (
              <tr
                key={c.certificateId}
                data-row
                data-testid="cert-row"
                data-certificate-id={c.certificateId}
                aria-rowindex={rows.first + i + 2}
              >
                <td>
                  <a href={`${BASE}/certificates/${c.certificateId}`} title={c.commonName}>
                    {c.commonName}
                  </a>
                  <div class="sans" title={c.subjectAlternativeNames.join(', ') || undefined}>
                    {c.subjectAlternativeNames.join(', ')}
                  </div>
                </td>
                <td title={c.clientId}>{c.clientId}</td>
                <td>
                  <code title={c.serialNumber}>{c.serialNumber}</code>
                </td>
                <td>
                  <StatusBadge status={c.status} />
                </td>
                <td>{c.usage}</td>
                <td>{formatDay(c.issuedAt)}</td>
                <td>
                  {formatDay(c.expiresAt)}
                  {c.status === 'Active' && <span class="hint"> ({c.daysUntilExpiration} d)</span>}
                </td>
              </tr>
            ))}
            {rows.last < walk.items.length && (
              <Spacer height={(walk.items.length - rows.last) * rows.rowHeight} />
            )}
          </tbody>
        </table>
      )}
      {!walk.loading && !walk.error && walk.items.length === 0 && (
        <Empty>
          {filterKey ? 'No certificate matches this filter.' : 'This tenant has no certificates yet.'}
        </Empty>
      )}
      {walk.loading && <Loading what="certificates" />}
      {walk.error && <Problem error={walk.error} onRetry={() => setTick((n) => n + 1)} />}
      {!walk.loading && walk.cursor && !walk.error && (
        <button type="button" onClick={() => void loadPage(walk.cursor, false)}>
          Load more
        </button>
      )}
    </>
  );
}
