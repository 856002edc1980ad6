import {
  CaManagerConfig,
  ConfigError,
  NatsClientSettings,
  loadConfig,
  loadNatsClientSettings,
} from '@ca/config';
import cluster from 'node:cluster';
import { MessagingOptions, STREAM_OWNER, openMessaging } from '@ca/messaging';
import { Logger } from '@nestjs/common';
import { NestPinoLogger, createLogger, flushTracing, installTracing } from '@ca/observability';
import { startHealthServer, startStartupServer } from './health.server';
import { configureMetricsAccess } from './metrics.endpoint';
import {
  WORKER_STARTED,
  WORKER_STOP,
  resolveWorkerCount,
  runClusterPrimary,
} from './cluster/service-cluster';
import { RunningService, ServiceRuntime } from './service-runtime';

export interface ServiceDefinition {
  name: string;
  /** Health port used when HEALTH_PORT is unset; omit for services with their own HTTP surface. */
  defaultHealthPort?: number;
  start(runtime: ServiceRuntime): Promise<RunningService>;
  /**
   * Processes to run the service in (node:cluster), from its settings; unset or 1: this process
   * alone. Each worker is the whole service, a replica sharing the ports (cluster/service-cluster.ts).
   */
  workers?(config: CaManagerConfig): number | 'auto';
  /**
   * The port of its own HTTP surface (gateway, responder): while the service waits at start-up
   * for another's stream, `/health/ready` there answers 503 and says what it waits for.
   */
  startupPort?(config: CaManagerConfig): number;
  /** Stream and subject names, so that a benchmark's services share a NATS with no one else. */
  messaging?: Pick<MessagingOptions, 'streamName' | 'subjectPrefix' | 'rpcSubjectPrefix'>;
}

/** Services that only read blobs (large replies): their NATS users may not write or delete one. */
export const BLOB_READERS = ['gateway', 'acme'];

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
  const logger = createLogger({ level: config.logLevel, format: config.logFormat, service: definition.name });
  const workers = definition.workers ? resolveWorkerCount(definition.workers(config)) : 1;
  if (workers > 1 && cluster.isPrimary) {
    // The settings were checked here once; each worker runs this function again as the service.
    runClusterPrimary({ name: definition.name, workers, logger });
    return;
  }
  let stopWorker: (() => void) | undefined;
  if (cluster.isWorker) {
    // The primary stops its workers by message; before its service started, a worker has nothing to drain.
    process.on('SIGINT', () => undefined);
    process.on('message', (message: { type?: string } | null) => {
      if (message?.type === WORKER_STOP) (stopWorker ?? (() => process.exit(0)))();
    });
  }
  // Before anything starts, so every span and log line of the service finds the tracer.
  installTracing({ serviceName: definition.name });
  // Classes log through Nest's shared Logger; route it to this service's JSON logger (with the
  // secret scrubber) from the start, before the service has created its Nest application.
  Logger.overrideLogger(new NestPinoLogger(logger));
  let service: RunningService | undefined;
  // What the start-up waits for (another service's stream): logged, and said by /health/ready.
  let waitingFor: string | undefined;
  const detail = () => (waitingFor ? { waitingFor } : { starting: !service });
  try {
    const healthPort = config.healthPort ?? definition.defaultHealthPort;
    const health = healthPort
      ? await startHealthServer(
          config.host,
          healthPort,
          async () => (service ? service.ready() : false),
          detail,
        )
      : undefined;
    // Without a health port, the service's own port says so until the service takes it over.
    const startupPort = health ? undefined : definition.startupPort?.(config);
    const startup =
      startupPort !== undefined && !cluster.isWorker
        ? await startStartupServer(config.host, startupPort, detail).catch(() => undefined)
        : undefined;
    const messaging = await openMessaging({
      natsUrl: config.natsUrl,
      name: definition.name,
      eventRetentionMs: config.eventRetentionMs,
      blobTtlMs: config.blobTtlMs,
      // The streams' owner creates them and keeps their settings; the others wait for them.
      streamRole: definition.name === STREAM_OWNER ? 'owner' : 'user',
      report: (what) => (waitingFor = what),
      blobsReadOnly: BLOB_READERS.includes(definition.name),
      ...nats,
      ...definition.messaging,
    });
    await startup?.handOver();
    service = await definition.start({ config, databaseUrl: config.databaseUrl, messaging, logger });
    const started = service;
    Logger.overrideLogger(new NestPinoLogger(logger));
    logger.info({ healthPort }, `${definition.name} started`);
    const stop = onShutdownSignal(
      async () => {
        logger.info(`${definition.name} stopping`);
        health?.close();
        await started.close();
        await messaging.close();
        await flushTracing().catch(() => undefined);
      },
      // A worker stops when its primary says so (below); Ctrl-C reaches the primary and every worker.
      cluster.isWorker ? [] : ['SIGTERM', 'SIGINT'],
    );
    stopWorker = stop;
    // Its own SIGTERM too, once: systemd signals every process of the unit, the primary included,
    // which then sends its stop message as well.
    if (cluster.isWorker) process.on('SIGTERM', stop);
    if (cluster.isWorker) process.send?.({ type: WORKER_STARTED });
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

/**
 * Runs `stop` once on SIGTERM or SIGINT (or `signals`), then exits; a second signal exits at once.
 * Returns the same stop for other triggers (a cluster primary's message), which a second time does nothing.
 */
export function onShutdownSignal(
  stop: () => Promise<void>,
  signals: NodeJS.Signals[] = ['SIGTERM', 'SIGINT'],
): () => void {
  let stopping = false;
  const begin = () => {
    if (stopping) return;
    stopping = true;
    const deadline = setTimeout(() => process.exit(1), 15_000);
    deadline.unref();
    stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  const handler = () => {
    if (stopping) process.exit(1);
    begin();
  };
  for (const signal of signals) process.on(signal, handler);
  return begin;
}
