import 'reflect-metadata';
import { CaManagerConfig, loadConfig } from '@ca/config';
import { createLogger } from '@ca/observability';
import { exitOnStartupError, onShutdownSignal } from '@ca/runtime';
import { consoleLink } from './console-link';
import { readyBanner } from './ready-banner';
import { startEmbeddedSystem } from './start-embedded';

async function main(): Promise<void> {
  let config: CaManagerConfig;
  try {
    config = loadConfig();
  } catch (error) {
    exitOnStartupError(error);
  }
  const logger = createLogger({ level: config.logLevel, format: config.logFormat, service: 'ca-manager' });
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
  process.stdout.write(
    readyBanner({
      startedInMs: Date.now() - started,
      host: config.host,
      gatewayPort: config.gatewayPort,
      pkiPort: config.pkiPort,
      databaseUrl: config.databaseUrl,
      natsUrl: config.natsUrl,
      dataDir: config.dataDir,
      externalTokens: Boolean(config.jwt.publicKeyPem || config.jwt.jwksUri),
      consoleUrl: await consoleLink(config),
    }),
  );
}

void main();
