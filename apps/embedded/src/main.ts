import 'reflect-metadata';
import { CaManagerConfig, loadConfig } from '@ca/config';
import { createLogger } from '@ca/observability';
import { exitOnStartupError, onShutdownSignal } from '@ca/runtime';
import { startEmbeddedSystem } from './start-embedded';

async function main(): Promise<void> {
  let config: CaManagerConfig;
  try {
    config = loadConfig();
  } catch (error) {
    exitOnStartupError(error);
  }
  const logger = createLogger({ level: config.logLevel, service: 'ca-manager' });
  const started = Date.now();
  try {
    const system = await startEmbeddedSystem(config);
    onShutdownSignal(async () => {
      logger.info('stopping');
      await system.stop();
    });
  } catch (error) {
    exitOnStartupError(error, logger);
  }
  const storage = config.databaseUrl ? 'Postgres' : `embedded Postgres in ${config.dataDir}`;
  const mode = `${storage}, ${config.natsUrl ? 'NATS' : 'in-process transport'}`;
  process.stdout.write(
    [
      '',
      `CA Manager is ready in ${Date.now() - started} ms (${mode})`,
      `  Administrative API:  http://${config.host}:${config.gatewayPort}   (OpenAPI: /openapi.json, docs: /docs)`,
      `  PKI distribution:    http://${config.host}:${config.pkiPort}`,
      config.jwt.publicKeyPem || config.jwt.jwksUri
        ? '  Tokens: signed by your identity provider (JWT_PUBLIC_KEY / JWT_JWKS_URI).'
        : '  Get a token:         npm run token -- --tenant $(node -e "console.log(crypto.randomUUID())")',
      '',
    ].join('\n') + '\n',
  );
}

void main();
