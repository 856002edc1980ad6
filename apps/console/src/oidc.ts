/**
 * Sign-in through the operator's identity provider: OpenID Connect authorization code flow with
 * PKCE (RFC 7636, S256) for a public client. The access token the provider issues is the API's
 * bearer token (the gateway verifies it with JWT_JWKS_URI or JWT_PUBLIC_KEY).
 */
export interface OidcSettings {
  issuer: string;
  clientId: string;
}

const PENDING_KEY = 'ca-console-oidc';
/**
 * What the console asks of the provider: an OpenID sign-in, and the API's scopes (docs/api.md#tokens)
 * for the access token, which most providers grant only when asked for by name.
 */
export const OIDC_SCOPE = 'openid ca:admin certificates:read certificates:write';
export const CALLBACK_PATH = '/console/oidc-callback';

function base64Url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
}

function randomText(): string {
  return base64Url(crypto.getRandomValues(new Uint8Array(32)));
}

export async function pkceChallenge(verifier: string): Promise<string> {
  return base64Url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))));
}

interface Discovery {
  authorization_endpoint: string;
  token_endpoint: string;
}

async function discover(issuer: string): Promise<Discovery> {
  const response = await fetch(`${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`, {
    credentials: 'omit',
  });
  if (!response.ok) throw new Error(`The identity provider's configuration answered ${response.status}.`);
  return (await response.json()) as Discovery;
}

/** Leaves for the identity provider's sign-in page; comes back to CALLBACK_PATH. */
export async function startOidcSignIn(settings: OidcSettings, returnTo: string): Promise<void> {
  const discovery = await discover(settings.issuer);
  const verifier = randomText();
  const state = randomText();
  sessionStorage.setItem(PENDING_KEY, JSON.stringify({ verifier, state, returnTo }));
  const url = new URL(discovery.authorization_endpoint);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: settings.clientId,
    redirect_uri: location.origin + CALLBACK_PATH,
    scope: OIDC_SCOPE,
    state,
    code_challenge: await pkceChallenge(verifier),
    code_challenge_method: 'S256',
  }).toString();
  location.assign(url.toString());
}

/** On CALLBACK_PATH: trades the code for the access token; answers it and where to go back to. */
export async function finishOidcSignIn(
  settings: OidcSettings,
  search: URLSearchParams,
): Promise<{ token: string; returnTo: string }> {
  const pending = JSON.parse(sessionStorage.getItem(PENDING_KEY) ?? 'null') as {
    verifier: string;
    state: string;
    returnTo: string;
  } | null;
  sessionStorage.removeItem(PENDING_KEY);
  if (search.get('error'))
    throw new Error(
      `The identity provider refused: ${search.get('error_description') ?? search.get('error')}`,
    );
  if (!pending || search.get('state') !== pending.state)
    throw new Error('This sign-in was not started here (its state does not match). Sign in again.');
  // RFC 9207 2.4: an answer that names another issuer than the one asked is not this sign-in's.
  const issuer = search.get('iss');
  if (issuer !== null && issuer.replace(/\/+$/, '') !== settings.issuer.replace(/\/+$/, ''))
    throw new Error('The answer came from another identity provider than the configured one. Sign in again.');
  const code = search.get('code');
  if (!code) throw new Error('The identity provider sent no authorization code.');
  const discovery = await discover(settings.issuer);
  const response = await fetch(discovery.token_endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    credentials: 'omit',
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: location.origin + CALLBACK_PATH,
      client_id: settings.clientId,
      code_verifier: pending.verifier,
    }).toString(),
  });
  if (!response.ok) throw new Error(`The identity provider's token endpoint answered ${response.status}.`);
  const answer = (await response.json()) as { access_token?: string };
  if (!answer.access_token) throw new Error('The identity provider answered no access token.');
  return {
    token: answer.access_token,
    returnTo: pending.returnTo.startsWith('/console') ? pending.returnTo : '/console/',
  };
}
