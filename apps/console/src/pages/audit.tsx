import { useEffect, useState } from 'preact/hooks';
import { ApiError, api, query } from '../api';
import { BASE, navigate } from '../router';
import { Session } from '../session';
import { Empty, Loading, Problem, formatDate } from '../ui';

/** GET /v2/audit (docs/api.md#audit-log). */
interface AuditEntry {
  id: string;
  occurredAt: string;
  principal: string | null;
  action: string;
  resource: string;
  result: number;
  code: string | null;
  requestId: string;
  occurrences?: number;
}

interface AuditPageAnswer {
  entries: AuditEntry[];
  nextCursor: string | null;
}

/** A datetime-local value (the browser's local time) as RFC 3339. */
function toIso(local: string): string | undefined {
  if (!local) return undefined;
  const date = new Date(local);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

export function AuditPage({ session, search }: { session: Session; search: URLSearchParams }) {
  const action = search.get('action') ?? '';
  const principal = search.get('principal') ?? '';
  const since = search.get('since') ?? '';
  const until = search.get('until') ?? '';
  const [form, setForm] = useState({ action, principal, since, until });
  const [entries, setEntries] = useState<AuditEntry[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<ApiError>();
  const params = { action, principal, since: toIso(since), until: toIso(until), limit: 100 };

  const load = async (after: string | null) => {
    setLoading(true);
    setError(undefined);
    try {
      const page = await api<AuditPageAnswer>(
        session,
        'GET',
        `/v2/audit${query({ ...params, cursor: after ?? undefined })}`,
      );
      setEntries((list) => (after ? [...list, ...page.entries] : page.entries));
      setCursor(page.nextCursor);
    } catch (e) {
      setError(e as ApiError);
    } finally {
      setLoading(false);
    }
  };
  useEffect(() => {
    setForm({ action, principal, since, until });
    void load(null);
  }, [session, action, principal, since, until]);

  const submit = (event: Event) => {
    event.preventDefault();
    const next = new URLSearchParams(Object.entries(form).filter(([, v]) => v));
    const text = next.toString();
    navigate(`${BASE}/audit${text ? `?${text}` : ''}`);
  };
  const field = (name: keyof typeof form) => ({
    value: form[name],
    onInput: (e: Event) => setForm({ ...form, [name]: (e.target as HTMLInputElement).value }),
  });
  return (
    <>
      <h1>Audit log</h1>
      <form class="filters" onSubmit={submit}>
        <div class="field">
          <label for="audit-action">Action</label>
          <input
            id="audit-action"
            data-testid="audit-action"
            placeholder="certificate.revoke"
            {...field('action')}
          />
        </div>
        <div class="field">
          <label for="audit-principal">Principal</label>
          <input id="audit-principal" data-testid="audit-principal" {...field('principal')} />
        </div>
        <div class="field">
          <label for="audit-since">From</label>
          <input id="audit-since" type="datetime-local" {...field('since')} />
        </div>
        <div class="field">
          <label for="audit-until">Until</label>
          <input id="audit-until" type="datetime-local" {...field('until')} />
        </div>
        <div class="field">
          <button type="submit" class="primary">
            Filter
          </button>
        </div>
      </form>
      {entries.length > 0 && (
        <table data-testid="audit-table">
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Principal</th>
              <th scope="col">Action</th>
              <th scope="col">Resource</th>
              <th scope="col">Result</th>
              <th scope="col">Request id</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((e) => (
              <tr key={e.id} data-testid="audit-row">
                <td>{formatDate(e.occurredAt)}</td>
                <td>{e.principal ?? '—'}</td>
                <td>
                  {e.action}
                  {e.occurrences ? ` (×${e.occurrences})` : ''}
                </td>
                <td>
                  <code>{e.resource}</code>
                </td>
                <td>
                  {e.result}
                  {e.code ? ` ${e.code}` : ''}
                </td>
                <td>
                  <code>{e.requestId}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {loading && <Loading what="the audit log" />}
      {error && <Problem error={error} onRetry={() => void load(null)} />}
      {!loading && !error && entries.length === 0 && <Empty>No entry matches.</Empty>}
      {!loading && cursor && (
        <button type="button" onClick={() => void load(cursor)}>
          Load older entries
        </button>
      )}
    </>
  );
}
