import { api, query } from '../api';
import { BASE } from '../router';
import { Session } from '../session';
import { Empty, Loaded, StatusBadge, formatDate, formatDay, useLoad } from '../ui';
import { CertificateItem, Page, Summary } from './types';

const DAY_MS = 86_400_000;
const WEEKS = 13;
/** The outlook reads at most this many certificates; beyond, the summary's counts still hold. */
const OUTLOOK_CAP = 10_000;

/** Active certificates expiring in each of the next 13 weeks (90 days and a bit). */
async function outlook(session: Session): Promise<{ weeks: number[]; start: Date; capped: boolean }> {
  const start = new Date();
  const params = {
    status: 'Active',
    expiresAfter: start.toISOString(),
    expiresBefore: new Date(start.getTime() + 90 * DAY_MS).toISOString(),
    sort: 'expiresAt',
    limit: '1000',
  };
  const weeks = new Array<number>(WEEKS).fill(0);
  let cursor: string | undefined;
  let read = 0;
  do {
    const page = await api<Page>(session, 'GET', `/v2/certificates${query({ ...params, cursor })}`);
    for (const item of page.certificates) {
      const week = Math.floor((new Date(item.expiresAt).getTime() - start.getTime()) / (7 * DAY_MS));
      weeks[Math.min(Math.max(week, 0), WEEKS - 1)]++;
    }
    read += page.certificates.length;
    cursor = page.nextCursor ?? undefined;
  } while (cursor && read < OUTLOOK_CAP);
  return { weeks, start, capped: Boolean(cursor) };
}

function OutlookChart({ weeks, start }: { weeks: number[]; start: Date }) {
  const max = Math.max(1, ...weeks);
  const width = 640;
  const height = 200;
  const bar = width / weeks.length;
  const total = weeks.reduce((a, b) => a + b, 0);
  return (
    <figure class="chart">
      <svg
        viewBox={`0 0 ${width} ${height + 40}`}
        role="img"
        aria-label={`${total} certificates expire in the next 90 days; the busiest week has ${max === 1 && total === 0 ? 0 : max}.`}
      >
        {weeks.map((count, i) => {
          const h = (count / max) * height;
          return (
            <g key={i}>
              <rect class="bar" x={i * bar + 4} y={height - h} width={bar - 8} height={h}>
                <title>{`Week of ${formatDay(new Date(start.getTime() + i * 7 * DAY_MS))}: ${count}`}</title>
              </rect>
              {count > 0 && (
                <text class="bar-label" x={i * bar + bar / 2} y={height - h - 4} text-anchor="middle">
                  {count}
                </text>
              )}
              {i % 2 === 0 && (
                <text class="axis-label" x={i * bar + bar / 2} y={height + 18} text-anchor="middle">
                  {formatDay(new Date(start.getTime() + i * 7 * DAY_MS)).slice(5)}
                </text>
              )}
            </g>
          );
        })}
        <line class="axis" x1={0} x2={width} y1={height} y2={height} />
      </svg>
      <figcaption>
        Active certificates expiring per week, next 90 days (weeks starting on the date shown).
      </figcaption>
    </figure>
  );
}

export function DashboardPage({ session }: { session: Session }) {
  const [summary, reloadSummary] = useLoad(
    () => api<Summary>(session, 'GET', '/v2/certificates/summary'),
    [session],
  );
  const [weeks, reloadWeeks] = useLoad(() => outlook(session), [session]);
  const [revoked, reloadRevoked] = useLoad(
    () => api<Page>(session, 'GET', `/v2/certificates${query({ status: 'Revoked', limit: 100 })}`),
    [session],
  );
  return (
    <>
      <h1>Dashboard</h1>
      <Loaded load={summary} what="the summary" onRetry={reloadSummary}>
        {(s) => (
          <section aria-labelledby="counts" class="counts">
            <h2 id="counts" class="visually-hidden">
              Counts
            </h2>
            <a class="count" href={`${BASE}/certificates?status=Active`}>
              <span class="count-number" data-testid="summary-active">
                {s.active}
              </span>
              <span class="count-label">Active</span>
            </a>
            <a class="count" href={`${BASE}/certificates?status=Active&expiry=7`}>
              <span class="count-number">{s.expiringWithin['7']}</span>
              <span class="count-label">Expiring in 7 days</span>
            </a>
            <a class="count warn" href={`${BASE}/certificates?status=Active&expiry=30`}>
              <span class="count-number" data-testid="summary-expiring-30">
                {s.expiringWithin['30']}
              </span>
              <span class="count-label">Expiring in 30 days</span>
            </a>
            <a class="count" href={`${BASE}/certificates?status=Active&expiry=90`}>
              <span class="count-number">{s.expiringWithin['90']}</span>
              <span class="count-label">Expiring in 90 days</span>
            </a>
            <a class="count" href={`${BASE}/certificates?status=Revoked`}>
              <span class="count-number">{s.revoked}</span>
              <span class="count-label">Revoked</span>
            </a>
            <a class="count" href={`${BASE}/certificates?status=Expired`}>
              <span class="count-number">{s.expired}</span>
              <span class="count-label">Expired</span>
            </a>
          </section>
        )}
      </Loaded>
      <section aria-labelledby="outlook">
        <h2 id="outlook">Expiry outlook</h2>
        <Loaded load={weeks} what="the expiry outlook" onRetry={reloadWeeks}>
          {(w) => (
            <>
              <OutlookChart weeks={w.weeks} start={w.start} />
              {w.capped && (
                <p class="hint">
                  The chart counts the first {OUTLOOK_CAP.toLocaleString('en')} certificates.
                </p>
              )}
            </>
          )}
        </Loaded>
      </section>
      <section aria-labelledby="recent-revocations">
        <h2 id="recent-revocations">Recent revocations</h2>
        <Loaded load={revoked} what="recent revocations" onRetry={reloadRevoked}>
          {(page) => {
            const recent = [...page.certificates]
              .sort((a: CertificateItem, b: CertificateItem) =>
                (b.revokedAt ?? '').localeCompare(a.revokedAt ?? ''),
              )
              .slice(0, 10);
            return recent.length === 0 ? (
              <Empty>Nothing has been revoked.</Empty>
            ) : (
              <table>
                <thead>
                  <tr>
                    <th scope="col">Common name</th>
                    <th scope="col">Serial number</th>
                    <th scope="col">Revoked at</th>
                    <th scope="col">Status</th>
                  </tr>
                </thead>
                <tbody>
                  {recent.map((c) => (
                    <tr key={c.certificateId}>
                      <td>
                        <a href={`${BASE}/certificates/${c.certificateId}`}>{c.commonName}</a>
                      </td>
                      <td>
                        <code>{c.serialNumber}</code>
                      </td>
                      <td>{formatDate(c.revokedAt)}</td>
                      <td>
                        <StatusBadge status={c.status} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            );
          }}
        </Loaded>
      </section>
    </>
  );
}
