/** What `npm start` prints once both ports answer; the README shows it (ready-banner.spec.ts keeps them equal). */
export interface ReadyBannerFacts {
  startedInMs: number;
  host: string;
  gatewayPort: number;
  pkiPort: number;
  /** Absent on the embedded Postgres, which keeps its files in `dataDir`. */
  databaseUrl?: string;
  natsUrl?: string;
  dataDir: string;
  /** Tokens come from the operator's identity provider (JWT_PUBLIC_KEY or JWT_JWKS_URI is set). */
  externalTokens: boolean;
  /** The console; with `#token=` signing the developer in when tokens are the development key's. */
  consoleUrl: string;
}

export function readyBanner(facts: ReadyBannerFacts): string {
  const storage = facts.databaseUrl ? 'Postgres' : `embedded Postgres in ${facts.dataDir}`;
  const mode = `${storage}, ${facts.natsUrl ? 'NATS' : 'in-process transport'}`;
  return (
    [
      '',
      `CA Manager is ready in ${facts.startedInMs} ms (${mode})`,
      `  Administrative API:  http://${facts.host}:${facts.gatewayPort}   (OpenAPI: /openapi.json, docs: /docs)`,
      `  PKI distribution:    http://${facts.host}:${facts.pkiPort}`,
      facts.externalTokens
        ? '  Tokens: signed by your identity provider (JWT_PUBLIC_KEY / JWT_JWKS_URI).'
        : '  Get a token:         npm run token -- --tenant $(node -e "console.log(crypto.randomUUID())")',
      facts.externalTokens
        ? `  Console:             ${facts.consoleUrl}   (sign in with a token of your identity provider)`
        : `  Console:             ${facts.consoleUrl}   (signs you in to a development tenant)`,
      '',
    ].join('\n') + '\n'
  );
}
