import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import './styles.css';
import { ApiError, whenUnauthorized } from './api';
import { CALLBACK_PATH, OidcSettings, finishOidcSignIn, startOidcSignIn } from './oidc';
import { AcmePage } from './pages/acme';
import { AuditPage } from './pages/audit';
import { CaPage } from './pages/ca';
import { CertificatePage } from './pages/certificate';
import { CertificatesPage } from './pages/certificates';
import { DashboardPage } from './pages/dashboard';
import { WebhooksPage } from './pages/webhooks';
import { BASE, followLink, navigate, useLocation } from './router';
import { Session, sessionOf, storeSession, storedSession, tokenFromFragment } from './session';
import { Loading } from './ui';

interface ConsoleSettings {
  oidc?: OidcSettings;
}

const NAV = [
  { href: `${BASE}/`, label: 'Dashboard', match: (p: string) => p === BASE },
  {
    href: `${BASE}/certificates`,
    label: 'Certificates',
    match: (p: string) => p.startsWith(`${BASE}/certificates`),
  },
  { href: `${BASE}/ca`, label: 'CA', match: (p: string) => p === `${BASE}/ca` },
  { href: `${BASE}/acme`, label: 'ACME', match: (p: string) => p === `${BASE}/acme` },
  { href: `${BASE}/webhooks`, label: 'Webhooks', match: (p: string) => p === `${BASE}/webhooks` },
  { href: `${BASE}/audit`, label: 'Audit log', match: (p: string) => p === `${BASE}/audit` },
];

/** The token of a scripted sign-in (`#token=`), read once and removed from the address bar. */
function initialSession(): { session?: Session; error?: string } {
  const fragmentToken = tokenFromFragment(location.hash);
  if (fragmentToken) {
    history.replaceState(null, '', location.pathname + location.search);
    try {
      const session = sessionOf(fragmentToken);
      storeSession(session);
      return { session };
    } catch (error) {
      return { error: (error as Error).message };
    }
  }
  return { session: storedSession() };
}

function SignIn({
  notice,
  settings,
  onSession,
}: {
  notice?: string;
  settings?: ConsoleSettings;
  onSession: (s: Session) => void;
}) {
  const [token, setToken] = useState('');
  const [error, setError] = useState<string>();
  const submit = (event: Event) => {
    event.preventDefault();
    try {
      onSession(sessionOf(token));
    } catch (e) {
      setError((e as Error).message);
    }
  };
  const oidc = settings?.oidc;
  return (
    <main id="main" class="sign-in">
      <h1>CA Manager console</h1>
      {notice && (
        <p class="notice" role="status">
          {notice}
        </p>
      )}
      {oidc && (
        <section>
          <button
            type="button"
            class="primary"
            onClick={() =>
              startOidcSignIn(oidc, location.pathname + location.search).catch((e: Error) =>
                setError(e.message),
              )
            }
          >
            Sign in with your identity provider
          </button>
          <p class="hint">Or paste a token:</p>
        </section>
      )}
      <form onSubmit={submit}>
        <label for="token">Bearer token (JWT)</label>
        <textarea
          id="token"
          name="token"
          rows={5}
          value={token}
          onInput={(e) => setToken((e.target as HTMLTextAreaElement).value)}
          aria-describedby="token-hint"
          required
        />
        <p id="token-hint" class="hint">
          On a development system: <code>npm run token -- --tenant &lt;tenant id&gt;</code>. The token stays
          in this tab only.
        </p>
        {error && (
          <p class="problem" role="alert">
            {error}
          </p>
        )}
        <button type="submit" class="primary">
          Sign in
        </button>
      </form>
    </main>
  );
}

function OidcCallback({
  settings,
  onSession,
}: {
  settings?: ConsoleSettings;
  onSession: (s: Session) => void;
}) {
  const [error, setError] = useState<string>();
  useEffect(() => {
    if (!settings?.oidc) {
      setError('Sign-in through an identity provider is not configured.');
      return;
    }
    finishOidcSignIn(settings.oidc, new URLSearchParams(location.search))
      .then(({ token, returnTo }) => {
        onSession(sessionOf(token));
        navigate(returnTo, true);
      })
      .catch((e: Error) => setError(e.message));
  }, [settings]);
  return (
    <main id="main">
      {error ? (
        <p class="problem" role="alert">
          {error}
        </p>
      ) : (
        <Loading what="your sign-in" />
      )}
    </main>
  );
}

function Page({ session, path, search }: { session: Session; path: string; search: URLSearchParams }) {
  if (path === BASE) return <DashboardPage session={session} />;
  if (path === `${BASE}/certificates`) return <CertificatesPage session={session} search={search} />;
  const certificate = /^\/console\/certificates\/([^/]+)$/.exec(path);
  if (certificate)
    return <CertificatePage session={session} certificateId={decodeURIComponent(certificate[1])} />;
  if (path === `${BASE}/ca`) return <CaPage session={session} />;
  if (path === `${BASE}/acme`) return <AcmePage session={session} />;
  if (path === `${BASE}/webhooks`) return <WebhooksPage session={session} />;
  if (path === `${BASE}/audit`) return <AuditPage session={session} search={search} />;
  return (
    <>
      <h1>Not found</h1>
      <p>
        There is no page at this address. <a href={`${BASE}/`}>Go to the dashboard</a>.
      </p>
    </>
  );
}

function App() {
  const [{ session: first, error: firstError }] = useState(initialSession);
  const [session, setSession] = useState<Session | undefined>(first);
  const [notice, setNotice] = useState<string | undefined>(firstError);
  const [settings, setSettings] = useState<ConsoleSettings>();
  const { path, search } = useLocation();

  useEffect(() => {
    fetch(`${BASE}/config.json`, { credentials: 'omit' })
      .then((r) => (r.ok ? (r.json() as Promise<ConsoleSettings>) : {}))
      .then(setSettings, () => setSettings({}));
  }, []);

  const signIn = (next: Session) => {
    storeSession(next);
    setNotice(undefined);
    setSession(next);
  };
  const signOut = (why?: string) => {
    storeSession(undefined);
    setSession(undefined);
    setNotice(why);
  };

  // An answer 401 (the token expired, or was refused): back to sign-in, on the same page.
  useEffect(() => {
    whenUnauthorized((error: ApiError) =>
      signOut(
        error.code === 'expired_token'
          ? 'Your session has expired. Sign in again to go on where you were.'
          : `The API refused the token: ${error.detail}`,
      ),
    );
  }, []);
  // The token's own expiry, also while nothing is being asked of the API.
  useEffect(() => {
    if (!session) return;
    const left = session.expiresAt * 1000 - Date.now();
    const timer = setTimeout(
      () => signOut('Your session has expired. Sign in again to go on where you were.'),
      Math.max(0, Math.min(left, 2 ** 31 - 1)),
    );
    return () => clearTimeout(timer);
  }, [session]);

  if (path === CALLBACK_PATH) return <OidcCallback settings={settings} onSession={signIn} />;
  if (!session) return <SignIn notice={notice} settings={settings} onSession={signIn} />;

  return (
    <div class="shell" onClick={followLink}>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <a class="brand" href={`${BASE}/`}>
          CA Manager
        </a>
        <nav aria-label="Main">
          <ul>
            {NAV.map((item) => (
              <li key={item.href}>
                <a href={item.href} aria-current={item.match(path) ? 'page' : undefined}>
                  {item.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div class="who">
          <span class="tenant" title={`Signed in as ${session.subject}`}>
            Tenant <code data-testid="signed-in-tenant">{session.tenantId}</code>
          </span>
          <button type="button" onClick={() => signOut('You have signed out.')}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        <Page session={session} path={path} search={search} />
      </main>
    </div>
  );
}

render(<App />, document.getElementById('app')!);
