import { useState } from 'preact/hooks';
import { api } from '../api';
import { Session } from '../session';
import { Empty, Loaded, Problem, formatDate, useAction, useLoad } from '../ui';

interface Webhook {
  webhookId: string;
  url: string;
  events: string[];
  expiringDays: number[];
  createdAt: string;
}

interface Delivery {
  eventId: string;
  type: string;
  attempt: number;
  statusCode?: number;
  durationMs: number;
  at: string;
  error?: string;
}

/** docs/api.md#webhooks: the event types a subscription may ask for. */
const EVENT_TYPES = [
  'certificate.issued',
  'certificate.renewed',
  'certificate.revoked',
  'certificate.expiring',
  'certificate.expired',
  'ca.issuing-added',
  'ca.revoked',
  'crl.published',
];

function Deliveries({ session, webhookId }: { session: Session; webhookId: string }) {
  const [list, reload] = useLoad(
    () =>
      api<{ deliveries: Delivery[] }>(
        session,
        'GET',
        `/v2/webhooks/${encodeURIComponent(webhookId)}/deliveries`,
      ),
    [session, webhookId],
  );
  return (
    <div class="deliveries">
      <div class="actions">
        <h4>Recent deliveries</h4>
        <button type="button" onClick={reload}>
          Refresh
        </button>
      </div>
      <Loaded load={list} what="the deliveries" onRetry={reload}>
        {({ deliveries }) =>
          deliveries.length === 0 ? (
            <Empty>Nothing delivered yet.</Empty>
          ) : (
            <table data-testid="delivery-log">
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Event</th>
                  <th scope="col">Attempt</th>
                  <th scope="col">Answer</th>
                  <th scope="col">Time</th>
                </tr>
              </thead>
              <tbody>
                {deliveries.map((d) => (
                  <tr key={`${d.eventId}-${d.attempt}`}>
                    <td>{formatDate(d.at)}</td>
                    <td>{d.type}</td>
                    <td>{d.attempt}</td>
                    <td>{d.statusCode ?? d.error ?? '—'}</td>
                    <td>{d.durationMs} ms</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </Loaded>
    </div>
  );
}

function CreateWebhook({ session, onCreated }: { session: Session; onCreated: () => void }) {
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<string[]>(['certificate.expiring', 'certificate.revoked']);
  const [days, setDays] = useState('30, 7, 1');
  const [secret, setSecret] = useState<string>();
  const action = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      const answer = await api<{ webhookId: string; secret: string }>(session, 'POST', '/v2/webhooks', {
        body: {
          url,
          events,
          expiringDays: days
            .split(/[\s,]+/)
            .filter(Boolean)
            .map(Number),
        },
      });
      setSecret(answer.secret);
      setUrl('');
      onCreated();
    });
  };
  return (
    <form onSubmit={submit} class="webhook-form">
      <label for="webhook-url">Receiver URL (https)</label>
      <input
        id="webhook-url"
        type="url"
        required
        value={url}
        onInput={(e) => setUrl((e.target as HTMLInputElement).value)}
      />
      <fieldset>
        <legend>Events</legend>
        <div class="checks">
          {EVENT_TYPES.map((type) => (
            <label class="check" key={type}>
              <input
                type="checkbox"
                checked={events.includes(type)}
                onChange={(e) =>
                  setEvents((list) =>
                    (e.target as HTMLInputElement).checked ? [...list, type] : list.filter((t) => t !== type),
                  )
                }
              />
              {type}
            </label>
          ))}
        </div>
      </fieldset>
      <label for="webhook-days">Announce expiry this many days before (comma-separated)</label>
      <input id="webhook-days" value={days} onInput={(e) => setDays((e.target as HTMLInputElement).value)} />
      {action.error && <Problem error={action.error} />}
      {secret && (
        <div class="secret" role="status" data-testid="webhook-secret">
          <p>
            <strong>Shown once.</strong> The signing secret: verify each delivery's{' '}
            <code>webhook-signature</code> with it.
          </p>
          <code>{secret}</code>{' '}
          <button type="button" onClick={() => setSecret(undefined)}>
            I have saved it
          </button>
        </div>
      )}
      <button type="submit" class="primary" disabled={action.pending || events.length === 0}>
        Subscribe
      </button>
    </form>
  );
}

export function WebhooksPage({ session }: { session: Session }) {
  const [hooks, reload] = useLoad(
    () => api<{ webhooks: Webhook[] }>(session, 'GET', '/v2/webhooks'),
    [session],
  );
  const [open, setOpen] = useState<string>();
  const [tested, setTested] = useState<string>();
  const action = useAction();
  const test = (webhookId: string) =>
    action.run(async () => {
      await api(session, 'POST', `/v2/webhooks/${encodeURIComponent(webhookId)}/test`);
      setTested(webhookId);
      setOpen(webhookId);
    });
  const remove = (webhookId: string) =>
    action.run(async () => {
      await api(session, 'DELETE', `/v2/webhooks/${encodeURIComponent(webhookId)}`);
      reload();
    });
  return (
    <>
      <h1>Webhooks</h1>
      <section aria-labelledby="subscriptions">
        <h2 id="subscriptions">Subscriptions</h2>
        {action.error && <Problem error={action.error} />}
        <Loaded load={hooks} what="the subscriptions" onRetry={reload}>
          {({ webhooks }) =>
            webhooks.length === 0 ? (
              <Empty>No subscription yet.</Empty>
            ) : (
              <ul class="list">
                {webhooks.map((w) => (
                  <li key={w.webhookId} class="card" data-testid="webhook-row">
                    <h3>
                      <code>{w.url}</code>
                    </h3>
                    <p>
                      {w.events.join(', ')}
                      {w.events.includes('certificate.expiring') &&
                        ` (expiry: ${w.expiringDays.join(', ')} days before)`}
                    </p>
                    <p class="hint">Since {formatDate(w.createdAt)}</p>
                    {tested === w.webhookId && <p role="status">A test event is on its way.</p>}
                    <div class="actions">
                      <button type="button" onClick={() => test(w.webhookId)} disabled={action.pending}>
                        Send a test event
                      </button>
                      <button
                        type="button"
                        aria-expanded={open === w.webhookId}
                        onClick={() => setOpen(open === w.webhookId ? undefined : w.webhookId)}
                      >
                        Delivery log
                      </button>
                      <button
                        type="button"
                        class="danger"
                        onClick={() => remove(w.webhookId)}
                        disabled={action.pending}
                      >
                        Delete
                      </button>
                    </div>
                    {open === w.webhookId && <Deliveries session={session} webhookId={w.webhookId} />}
                  </li>
                ))}
              </ul>
            )
          }
        </Loaded>
      </section>
      <section aria-labelledby="subscribe">
        <h2 id="subscribe">Subscribe</h2>
        <CreateWebhook session={session} onCreated={reload} />
      </section>
    </>
  );
}
