import { useState } from 'preact/hooks';
import { api } from '../api';
import { Session } from '../session';
import { Empty, Loaded, Problem, formatDate, useAction, useLoad } from '../ui';

interface EabKey {
  keyId: string;
  createdAt: string;
  boundAccount?: string;
  disabled: boolean;
}

export function AcmePage({ session }: { session: Session }) {
  const [keys, reload] = useLoad(
    () => api<{ keys: EabKey[] }>(session, 'GET', '/v2/acme/eab-keys'),
    [session],
  );
  const [created, setCreated] = useState<{ keyId: string; hmacKey: string }>();
  const action = useAction();
  const directory = `${location.origin}/acme/${session.tenantId}/directory`;
  const create = () =>
    action.run(async () => {
      setCreated(await api<{ keyId: string; hmacKey: string }>(session, 'POST', '/v2/acme/eab-keys'));
      reload();
    });
  const disable = (keyId: string) =>
    action.run(async () => {
      await api(session, 'DELETE', `/v2/acme/eab-keys/${encodeURIComponent(keyId)}`);
      reload();
    });
  return (
    <>
      <h1>ACME</h1>
      <section aria-labelledby="directory">
        <h2 id="directory">Directory</h2>
        <p>
          ACME clients (certbot, lego, Caddy, cert-manager) use this directory URL with an External Account
          Binding key:
        </p>
        <pre class="copy" tabIndex={0} data-testid="acme-directory">
          {directory}
        </pre>
      </section>
      <section aria-labelledby="eab">
        <h2 id="eab">External Account Binding keys</h2>
        <div class="actions">
          <button
            type="button"
            class="primary"
            onClick={create}
            disabled={action.pending}
            data-testid="eab-create"
          >
            Create a key
          </button>
        </div>
        {action.error && <Problem error={action.error} />}
        {created && (
          <div class="secret" role="status" data-testid="eab-secret">
            <p>
              <strong>Shown once.</strong> Give these to the ACME client now; the HMAC key cannot be shown
              again.
            </p>
            <dl class="fields">
              <dt>Key id</dt>
              <dd>
                <code>{created.keyId}</code>
              </dd>
              <dt>HMAC key</dt>
              <dd>
                <code>{created.hmacKey}</code>
              </dd>
              <dt>certbot</dt>
              <dd>
                <code>
                  certbot certonly --server {directory} --eab-kid {created.keyId} --eab-hmac-key{' '}
                  {created.hmacKey} …
                </code>
              </dd>
            </dl>
            <button type="button" onClick={() => setCreated(undefined)}>
              I have saved it
            </button>
          </div>
        )}
        <Loaded load={keys} what="the keys" onRetry={reload}>
          {({ keys: list }) =>
            list.length === 0 ? (
              <Empty>No key yet: create one for each ACME client that should open an account.</Empty>
            ) : (
              <table>
                <thead>
                  <tr>
                    <th scope="col">Key id</th>
                    <th scope="col">Created</th>
                    <th scope="col">Account</th>
                    <th scope="col">State</th>
                    <th scope="col">
                      <span class="visually-hidden">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {list.map((k) => (
                    <tr key={k.keyId} data-testid="eab-row">
                      <td>
                        <code>{k.keyId}</code>
                      </td>
                      <td>{formatDate(k.createdAt)}</td>
                      <td>{k.boundAccount ? <code>{k.boundAccount}</code> : 'not used yet'}</td>
                      <td>{k.disabled ? 'disabled' : 'usable'}</td>
                      <td>
                        {!k.disabled && (
                          <button
                            type="button"
                            onClick={() => disable(k.keyId)}
                            disabled={action.pending}
                            aria-label={`Disable ${k.keyId}`}
                          >
                            Disable
                          </button>
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )
          }
        </Loaded>
      </section>
    </>
  );
}
