import { resolve } from 'node:path';

/** Where the console's build is and what its pages may load (docs/console.md#security). */
export interface ConsoleSite {
  /** dist/apps/console: index.html and assets/ (`npx nx build console`). */
  directory: string;
  /** The Content-Security-Policy of every console response. */
  contentSecurityPolicy: string;
  /** What the page reads at `/console/config.json`. */
  settings: { oidc?: { issuer: string; clientId: string } };
}

/** The build of `npx nx build console`, at the workspace root's dist/. */
export const CONSOLE_BUILD_DIRECTORY = resolve(__dirname, '..', '..', '..', '..', 'dist', 'apps', 'console');

/**
 * No inline script or style, nothing from another origin but the two the page must reach: the
 * distribution surface (the OCSP status of a certificate, asked as a relying party would) and,
 * when configured, the identity provider (OIDC discovery and the token endpoint).
 */
export function consoleContentSecurityPolicy(pkiPublicUrl: string, oidcIssuer?: string): string {
  const connect = [
    "'self'",
    new URL(pkiPublicUrl).origin,
    ...(oidcIssuer ? [new URL(oidcIssuer).origin] : []),
  ];
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self'",
    `connect-src ${[...new Set(connect)].join(' ')}`,
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

export function consoleSite(options: {
  pkiPublicUrl: string;
  oidc?: { issuer: string; clientId: string };
  directory?: string;
}): ConsoleSite {
  return {
    directory: options.directory ?? CONSOLE_BUILD_DIRECTORY,
    contentSecurityPolicy: consoleContentSecurityPolicy(options.pkiPublicUrl, options.oidc?.issuer),
    settings: options.oidc ? { oidc: options.oidc } : {},
  };
}
