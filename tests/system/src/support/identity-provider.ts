import { randomBytes } from 'node:crypto';
import { Server, createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair } from 'jose';
import type { Configuration } from 'oidc-provider';
import { ALL_SCOPES } from './tokens';

/**
 * A real OpenID Connect provider (panva's `oidc-provider`, certified by the OpenID Foundation),
 * run in the test's process over HTTP on 127.0.0.1, set up as an operator would set up their own
 * identity provider for the console (docs/console.md#sign-in):
 *
 * - the console as a public client (no secret, `token_endpoint_auth_method: none`), authorization
 *   code flow with PKCE required (S256), redirect URI `{gateway}/console/oidc-callback`, CORS
 *   allowed from that redirect URI's origin only;
 * - the API as a resource server: every access token is a JWT (RFC 9068, `typ: at+jwt`) signed
 *   with ES256 by a key published at `{issuer}/jwks`, with the API's audience and scopes, and the
 *   account's `tenantId` as an extra claim;
 * - a confidential client for automation (client credentials, RFC 6749 4.4) whose tokens carry
 *   the same tenant, so a test can set the tenant up through the API with the provider's tokens;
 * - the provider's own development sign-in pages (any login name, no password checked) stand for
 *   the operator's real login.
 */
export interface IdentityProvider {
  /** The issuer (`iss` of its tokens, and CONSOLE_OIDC_ISSUER). */
  readonly issuer: string;
  /** Where the signing keys are published (JWT_JWKS_URI). */
  readonly jwksUri: string;
  /** The `kid` of the key that signs its tokens. */
  readonly keyId: string;
  /** Registers the clients once the gateway's address is known (the redirect URI needs it). */
  configure(settings: {
    gatewayUrl: string;
    /** Login name → tenant id carried by that person's tokens. */
    accounts: Record<string, string>;
  }): Promise<void>;
  /** An access token of the automation client, for the tenant of `account`. */
  automationToken(account: string): Promise<string>;
  stop(): Promise<void>;
}

export const CONSOLE_CLIENT_ID = 'ca-console';
/** The API's audience (JWT_AUDIENCE). */
export const API_AUDIENCE = 'https://ca-manager.test/api';

export async function startIdentityProvider(): Promise<IdentityProvider> {
  let handler: Parameters<typeof createServer>[1] = (_request, response) => {
    response.statusCode = 503;
    response.end();
  };
  const server: Server = createServer((request, response) => handler!(request, response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const keyId = randomBytes(8).toString('hex');
  const signingKey = { ...(await exportJWK(privateKey)), kid: keyId, alg: 'ES256', use: 'sig' };
  const automationSecret = randomBytes(24).toString('base64url');
  const automationClients = new Map<string, string>();

  return {
    issuer,
    jwksUri: `${issuer}/jwks`,
    keyId,
    async configure({ gatewayUrl, accounts }) {
      const redirectUri = `${gatewayUrl}/console/oidc-callback`;
      const tenantOf = (accountId: string | undefined, clientId: string | undefined) =>
        accountId
          ? accounts[accountId]
          : clientId
            ? accounts[automationClients.get(clientId) ?? '']
            : undefined;
      const configuration: Configuration = {
        clients: [
          {
            client_id: CONSOLE_CLIENT_ID,
            token_endpoint_auth_method: 'none',
            redirect_uris: [redirectUri],
            grant_types: ['authorization_code'],
            response_types: ['code'],
          },
          ...Object.keys(accounts).map((account, i) => {
            automationClients.set(`automation-${i}`, account);
            return {
              client_id: `automation-${i}`,
              client_secret: automationSecret,
              grant_types: ['client_credentials'],
              redirect_uris: [],
              response_types: [],
            };
          }),
        ],
        jwks: { keys: [signingKey] },
        // Its one key is a P-256 key: ID tokens are signed as the access tokens are.
        clientDefaults: { id_token_signed_response_alg: 'ES256' },
        cookies: { keys: [randomBytes(32).toString('hex')] },
        pkce: { required: () => true },
        ttl: {
          AccessToken: 3600,
          ClientCredentials: 600,
          Grant: 3600,
          IdToken: 3600,
          Interaction: 600,
          Session: 3600,
        },
        findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub }) }),
        scopes: ['openid', ...ALL_SCOPES.split(' ')],
        features: {
          devInteractions: { enabled: true },
          clientCredentials: { enabled: true },
          resourceIndicators: {
            enabled: true,
            defaultResource: () => API_AUDIENCE,
            useGrantedResource: () => true,
            getResourceServerInfo: () => ({
              scope: ALL_SCOPES,
              audience: API_AUDIENCE,
              accessTokenTTL: 3600,
              accessTokenFormat: 'jwt',
              jwt: { sign: { alg: 'ES256' } },
            }),
          },
        },
        extraTokenClaims: (_ctx, token) => {
          const tenantId = tenantOf(
            (token as { accountId?: string }).accountId,
            (token as { clientId?: string }).clientId,
          );
          return tenantId ? { tenantId } : undefined;
        },
        // CORS for the console's calls from the page (discovery is open to every origin; the token
        // endpoint only to the origin of a public client's redirect URI).
        clientBasedCORS: (_ctx, origin, client) =>
          client.clientAuthMethod === 'none' &&
          client.redirectUris!.some((uri) => new URL(uri).origin === origin),
      };
      // Loaded here, not at import: it warns as it loads, and the caller may be filtering that.
      const { default: Provider } = await import('oidc-provider');
      const provider = new Provider(issuer, configuration);
      handler = provider.callback();
    },
    async automationToken(account) {
      const clientId = [...automationClients].find(([, name]) => name === account)?.[0];
      if (!clientId) throw new Error(`no automation client for ${account}`);
      const response = await fetch(`${issuer}/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${clientId}:${automationSecret}`).toString('base64')}`,
        },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          scope: ALL_SCOPES,
          resource: API_AUDIENCE,
        }).toString(),
      });
      const answer = (await response.json()) as { access_token?: string };
      if (!response.ok || !answer.access_token)
        throw new Error(`client credentials: ${response.status} ${JSON.stringify(answer)}`);
      return answer.access_token;
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
