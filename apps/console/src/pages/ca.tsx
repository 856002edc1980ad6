import { useState } from 'preact/hooks';
import { api } from '../api';
import { Session } from '../session';
import { Empty, Loaded, Problem, StatusBadge, formatDate, formatDay, useAction, useLoad } from '../ui';
import { readCertificate } from '../x509';
import { CaEntry } from './types';

interface Policy {
  allowedDnsSuffixes: string[] | null;
  allowedUsages: string[] | null;
  issuingCaId?: string;
  retiredIssuingCaId?: string;
}

function constraintsOf(ca: CaEntry): string | undefined {
  if (!ca.certificatePem) return undefined;
  return readCertificate(ca.certificatePem).extensions.find((e) => e.oid === '2.5.29.30')?.description;
}

function CaCard({ ca }: { ca: CaEntry }) {
  const constraints = constraintsOf(ca);
  return (
    <article class="card" data-testid="ca-card" data-ca-id={ca.caId}>
      <h3>
        {ca.subject} <StatusBadge status={ca.state} />
      </h3>
      <dl class="fields">
        <dt>Role</dt>
        <dd>{ca.role === 'root' ? 'Root (the trust anchor)' : 'Issuing CA (signs leaves)'}</dd>
        <dt>Key</dt>
        <dd>{ca.keyAlgorithm}</dd>
        {ca.serialNumber && (
          <>
            <dt>Serial number</dt>
            <dd>
              <code>{ca.serialNumber}</code>
            </dd>
          </>
        )}
        <dt>Valid</dt>
        <dd>
          {ca.notBefore
            ? `${formatDay(ca.notBefore)} to ${formatDay(ca.notAfter!)}`
            : 'waiting for its certificate'}
        </dd>
        {ca.external && (
          <>
            <dt>Corporate root</dt>
            <dd>its key is held by your corporate CA</dd>
          </>
        )}
        {ca.role === 'issuing' && (
          <>
            <dt>Name constraints</dt>
            <dd>{constraints ?? 'none: any name the policy allows'}</dd>
          </>
        )}
        <dt>CA id</dt>
        <dd>
          <code>{ca.caId}</code>
        </dd>
      </dl>
    </article>
  );
}

function PolicyEditor({
  session,
  policy,
  onSaved,
}: {
  session: Session;
  policy: Policy;
  onSaved: () => void;
}) {
  const [suffixes, setSuffixes] = useState((policy.allowedDnsSuffixes ?? []).join('\n'));
  const [usages, setUsages] = useState<string[]>(policy.allowedUsages ?? ['Client', 'Server']);
  const [saved, setSaved] = useState<Policy>();
  const action = useAction();
  const toggle = (usage: string, on: boolean) =>
    setUsages((list) => (on ? [...list.filter((u) => u !== usage), usage] : list.filter((u) => u !== usage)));
  const submit = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      const answer = await api<Policy>(session, 'PUT', '/v2/policy', {
        body: {
          allowedDnsSuffixes: suffixes
            .split(/[\s,]+/)
            .map((s) => s.trim())
            .filter(Boolean),
          allowedUsages: usages,
        },
      });
      setSaved(answer);
      onSaved();
    });
  };
  const remove = () =>
    action.run(async () => {
      await api<Policy>(session, 'DELETE', '/v2/policy');
      setSuffixes('');
      setSaved(undefined);
      onSaved();
    });
  return (
    <form onSubmit={submit} class="policy-form">
      <label for="policy-suffixes">Allowed DNS suffixes (one per line; empty allows no DNS name)</label>
      <textarea
        id="policy-suffixes"
        rows={4}
        value={suffixes}
        onInput={(e) => setSuffixes((e.target as HTMLTextAreaElement).value)}
      />
      <fieldset>
        <legend>Allowed usages</legend>
        {['Client', 'Server'].map((usage) => (
          <label class="check" key={usage}>
            <input
              type="checkbox"
              checked={usages.includes(usage)}
              onChange={(e) => toggle(usage, (e.target as HTMLInputElement).checked)}
            />
            {usage}
          </label>
        ))}
      </fieldset>
      <p class="hint">
        Saving a policy that changes the names or usages makes a new issuing CA with matching name
        constraints; the old one is retired.
      </p>
      {action.error && <Problem error={action.error} />}
      {saved?.issuingCaId && (
        <p role="status">
          A new issuing CA <code>{saved.issuingCaId}</code> now signs leaves.
        </p>
      )}
      <div class="actions">
        <button type="submit" class="primary" disabled={action.pending}>
          Save the policy
        </button>
        {policy.allowedDnsSuffixes !== null && (
          <button type="button" onClick={remove} disabled={action.pending}>
            Remove the policy
          </button>
        )}
      </div>
    </form>
  );
}

/** A tenant without a CA (a fresh development tenant): make its root and issuing CA here. */
function InitializeCa({ session, onDone }: { session: Session; onDone: () => void }) {
  const [commonName, setCommonName] = useState('');
  const [organization, setOrganization] = useState('');
  const [country, setCountry] = useState('');
  const [validityYears, setValidityYears] = useState('10');
  const action = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      await api(session, 'POST', '/v2/ca/initialize', {
        body: { commonName, organization, country, validityYears: Number(validityYears) },
      });
      onDone();
    });
  };
  const input = (id: string, label: string, value: string, set: (v: string) => void, extra = {}) => (
    <>
      <label for={id}>{label}</label>
      <input
        id={id}
        required
        value={value}
        onInput={(e) => set((e.target as HTMLInputElement).value)}
        {...extra}
      />
    </>
  );
  return (
    <form onSubmit={submit} class="card">
      <p>This tenant has no CA yet. Make its root and an issuing CA that signs its certificates:</p>
      {input('ca-common-name', 'Common name of the root', commonName, setCommonName)}
      {input('ca-organization', 'Organization', organization, setOrganization)}
      {input('ca-country', 'Country (two letters)', country, setCountry, { maxLength: 2, minLength: 2 })}
      {input('ca-validity', 'Validity (years)', validityYears, setValidityYears, {
        type: 'number',
        min: 1,
        max: 30,
      })}
      {action.error && <Problem error={action.error} />}
      <div class="actions">
        <button type="submit" class="primary" disabled={action.pending}>
          Initialize the CA
        </button>
      </div>
    </form>
  );
}

export function CaPage({ session }: { session: Session }) {
  const [cas, reloadCas] = useLoad(() => api<{ cas: CaEntry[] }>(session, 'GET', '/v2/ca'), [session]);
  const [policy, reloadPolicy] = useLoad(() => api<Policy>(session, 'GET', '/v2/policy'), [session]);
  return (
    <>
      <h1>Certificate authority</h1>
      <Loaded load={cas} what="the CAs" onRetry={reloadCas}>
        {({ cas: list }) => {
          if (list.length === 0) return <InitializeCa session={session} onDone={reloadCas} />;
          const current = list.filter((c) => c.state === 'active' || c.state === 'pending');
          const history = [...list].sort((a, b) => (a.notBefore ?? '9').localeCompare(b.notBefore ?? '9'));
          return (
            <>
              <section aria-labelledby="roots">
                <h2 id="roots">Roots</h2>
                <div class="cards">
                  {current
                    .filter((c) => c.role === 'root')
                    .map((c) => (
                      <CaCard key={c.caId} ca={c} />
                    ))}
                </div>
              </section>
              <section aria-labelledby="issuing">
                <h2 id="issuing">Issuing CAs</h2>
                {current.some((c) => c.role === 'issuing') ? (
                  <div class="cards">
                    {current
                      .filter((c) => c.role === 'issuing')
                      .map((c) => (
                        <CaCard key={c.caId} ca={c} />
                      ))}
                  </div>
                ) : (
                  <Empty>The root signs this tenant's leaves itself (no active issuing CA).</Empty>
                )}
              </section>
              <section aria-labelledby="history">
                <h2 id="history">History</h2>
                <table>
                  <thead>
                    <tr>
                      <th scope="col">CA</th>
                      <th scope="col">Role</th>
                      <th scope="col">State</th>
                      <th scope="col">From</th>
                      <th scope="col">Until</th>
                    </tr>
                  </thead>
                  <tbody>
                    {history.map((c) => (
                      <tr key={c.caId}>
                        <td>{c.subject}</td>
                        <td>{c.role}</td>
                        <td>
                          <StatusBadge status={c.state} />
                        </td>
                        <td>{formatDate(c.notBefore)}</td>
                        <td>{formatDate(c.notAfter)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </section>
            </>
          );
        }}
      </Loaded>
      <section aria-labelledby="policy">
        <h2 id="policy">Issuance policy</h2>
        <Loaded load={policy} what="the policy" onRetry={reloadPolicy}>
          {(p) => (
            <>
              <p data-testid="policy-summary">
                {p.allowedDnsSuffixes === null
                  ? 'No policy: any valid name, both usages.'
                  : `Names under: ${p.allowedDnsSuffixes.length ? p.allowedDnsSuffixes.join(', ') : 'none'}; usages: ${(p.allowedUsages ?? ['Client', 'Server']).join(', ')}.`}
              </p>
              <PolicyEditor
                session={session}
                policy={p}
                onSaved={() => {
                  reloadPolicy();
                  reloadCas();
                }}
              />
            </>
          )}
        </Loaded>
      </section>
    </>
  );
}
