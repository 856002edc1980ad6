import {
  CaManagerConfig,
  ConfigError,
  NatsClientSettings,
  loadConfig,
  loadNatsClientSettings,
} from '@ca/config';
import { DAY_MS, openMessaging } from '@ca/messaging';
import { Logger } from '@nestjs/common';
import { NestPinoLogger, createLogger, flushTracing, installTracing } from '@ca/observability';
import { startHealthServer } from './health.server';
import { configureMetricsAccess } from './metrics.endpoint';
import { RunningService, ServiceRuntime } from './service-runtime';

export interface ServiceDefinition {
  name: string;
  /** Health port used when HEALTH_PORT is unset; omit for services with their own HTTP surface. */
  defaultHealthPort?: number;
  start(runtime: ServiceRuntime): Promise<RunningService>;
}

/**
 * The distributed-mode entry point of one service (`nx serve <app>`): validates the settings,
 * connects to Postgres and NATS, starts the service and stops it cleanly on SIGTERM/SIGINT.
 */
export async function runService(definition: ServiceDefinition): Promise<void> {
  let config: CaManagerConfig;
  let nats: NatsClientSettings;
  try {
    config = loadConfig();
    // Its own NATS user when NATS_PASSWORD_<APP> is set (docs/security.md, "The bus").
    nats = loadNatsClientSettings(definition.name);
    if (!config.databaseUrl)
      throw new ConfigError(
        'DATABASE_URL',
        `is required to run ${definition.name} on its own (use npm start for embedded mode)`,
      );
    if (!config.natsUrl)
      throw new ConfigError(
        'NATS_URL',
        `is required to run ${definition.name} on its own (use npm start for embedded mode)`,
      );
  } catch (error) {
    exitOnStartupError(error);
  }
  configureMetricsAccess({ token: config.metricsToken });
  const logger = createLogger({ level: config.logLevel, service: definition.name });
  // Before anything starts, so every span and log line of the service finds the tracer.
  installTracing({ serviceName: definition.name });
  // Classes log through Nest's shared Logger; route it to this service's JSON logger (with the
  // secret scrubber) even for a service without a Nest application of its own (revocation).
  Logger.overrideLogger(new NestPinoLogger(logger));
  try {
    const messaging = await openMessaging({
      natsUrl: config.natsUrl,
      name: definition.name,
      eventRetentionMs: config.eventRetentionDays * DAY_MS,
      ...nats,
    });
    const service = await definition.start({ config, databaseUrl: config.databaseUrl, messaging, logger });
    Logger.overrideLogger(new NestPinoLogger(logger));
    const healthPort = config.healthPort ?? definition.defaultHealthPort;
    const health = healthPort
      ? await startHealthServer(config.host, healthPort, () => service.ready())
      : undefined;
    logger.info({ healthPort }, `${definition.name} started`);
    onShutdownSignal(async () => {
      logger.info(`${definition.name} stopping`);
      health?.close();
      await service.close();
      await messaging.close();
      await flushTracing().catch(() => undefined);
    });
  } catch (error) {
    exitOnStartupError(error, logger);
  }
}

export function exitOnStartupError(error: unknown, logger?: { fatal(o: object, m: string): void }): never {
  if (error instanceof ConfigError) {
    process.stderr.write(`Configuration error: ${error.message}\n`);
  } else {
    const message = error instanceof Error ? error.message : String(error);
    if (logger) logger.fatal({ err: error }, `start-up failed: ${message}`);
    process.stderr.write(`Start-up failed: ${message}\n`);
  }
  process.exit(1);
}

/** Runs `stop` once on SIGTERM or SIGINT, then exits; a second signal exits at once. */
export function onShutdownSignal(stop: () => Promise<void>): void {
  let stopping = false;
  const handler = () => {
    if (stopping) process.exit(1);
    stopping = true;
    const deadline = setTimeout(() => process.exit(1), 15_000);
    deadline.unref();
    stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', handler);
  process.on('SIGINT', handler);
}
