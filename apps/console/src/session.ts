/**
 * The signed-in session: the bearer token and what the console reads from its claims (tenant,
 * principal, scopes, expiry). The token is verified by the API on every call; the console reads
 * the claims only to show them and to know when the token runs out.
 */
export interface Session {
  token: string;
  tenantId: string;
  subject: string;
  scopes: string[];
  /** Seconds since the epoch. */
  expiresAt: number;
}

const STORAGE_KEY = 'ca-console-token';

function base64UrlDecode(text: string): string {
  const padded = text
    .replace(/-/g, '+')
    .replace(/_/g, '/')
    .padEnd(Math.ceil(text.length / 4) * 4, '=');
  const binary = atob(padded);
  const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
  return new TextDecoder().decode(bytes);
}

/** The session a JWT stands for, or an error that says, in words, why it cannot be one. */
export function sessionOf(token: string, now = Date.now()): Session {
  const trimmed = token.trim().replace(/^Bearer\s+/i, '');
  const parts = trimmed.split('.');
  if (parts.length !== 3) throw new Error('This is not a JWT: it should have three parts separated by dots.');
  let claims: Record<string, unknown>;
  try {
    claims = JSON.parse(base64UrlDecode(parts[1]));
  } catch {
    throw new Error('The token’s claims cannot be read.');
  }
  if (typeof claims.tenantId !== 'string') throw new Error('The token has no tenantId claim.');
  const exp = typeof claims.exp === 'number' ? claims.exp : 0;
  if (exp * 1000 <= now) throw new Error('The token has expired. Get a new one and sign in again.');
  const scopes =
    typeof claims.scope === 'string'
      ? claims.scope.split(' ').filter(Boolean)
      : Array.isArray(claims.scp)
        ? claims.scp.filter((s): s is string => typeof s === 'string')
        : [];
  return {
    token: trimmed,
    tenantId: claims.tenantId,
    subject: typeof claims.sub === 'string' ? claims.sub : '',
    scopes,
    expiresAt: exp,
  };
}

/** `#token=<jwt>` in the URL (a scripted sign-in, or the link `npm start` prints), removed once read. */
export function tokenFromFragment(hash: string): string | undefined {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  return params.get('token') ?? undefined;
}

export function storedSession(): Session | undefined {
  const token = sessionStorage.getItem(STORAGE_KEY);
  if (!token) return undefined;
  try {
    return sessionOf(token);
  } catch {
    sessionStorage.removeItem(STORAGE_KEY);
    return undefined;
  }
}

export function storeSession(session: Session | undefined): void {
  if (session) sessionStorage.setItem(STORAGE_KEY, session.token);
  else sessionStorage.removeItem(STORAGE_KEY);
}
