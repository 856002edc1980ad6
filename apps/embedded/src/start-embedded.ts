import { CaManagerConfig } from '@ca/config';
import { IssuanceApi } from '@ca/contracts';
import { Messaging, MessagingOptions, openMessaging, runDeadLetterCommand } from '@ca/messaging';
import { DataSource } from 'typeorm';
import { Logger as NestLogger } from '@nestjs/common';
import { Logger, NestPinoLogger, createLogger, installTracing } from '@ca/observability';
import { startEmbeddedPostgres } from '@ca/persistence';
import { RunningService, ServiceRuntime, once } from '@ca/runtime';
import { startAcme } from '@ca/acme';
import { startGateway, startOperatorEndpoint } from '@ca/gateway';
import { OperatorEndpoint, OpsOutput } from '@ca/operations';
import { startIssuance } from '@ca/issuance';
import { startOcspResponder } from '@ca/ocsp-responder';
import { startRevocation } from '@ca/revocation';
import { WebhooksOptions, startWebhooks } from '@ca/webhooks';
import { refuseSettingsOfOwnProcesses } from './one-process-settings';

export interface EmbeddedSystem {
  services: RunningService[];
  /** The database every service's schema lives in (embedded PGlite or DATABASE_URL). */
  databaseUrl: string;
  messaging: Messaging;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  /** A logger per service; by default JSON lines on standard output at LOG_LEVEL. */
  serviceLogger?: (service: string) => Logger;
  /** Stream and subject names, so that several systems can share one NATS (tests). */
  messaging?: Pick<MessagingOptions, 'streamName' | 'subjectPrefix' | 'rpcSubjectPrefix'>;
  /** The webhooks service's clock for its expiry scan (tests that watch certificates expire). */
  webhooks?: WebhooksOptions;
  /**
   * Each service on its own NATS user and Postgres role, as `nx serve` runs them on the shipped
   * configuration (tests of deploy/nats/nats-server.conf and deploy/postgres): its messaging
   * credentials and its DATABASE_URL. The system's `messaging` is then the gateway's.
   */
  perService?: {
    messaging(service: string): Pick<MessagingOptions, 'user' | 'pass' | 'inboxPrefix'>;
    databaseUrl(service: string): string;
  };
}

/**
 * The whole system in one process (docs/api.md#running-the-system, `npm start`): the six services, unchanged,
 * over the in-process transport, on an embedded Postgres (PGlite) under DATA_DIR unless
 * DATABASE_URL/NATS_URL point at real ones. Back-end services start before the surfaces that call them.
 * On the embedded database it also opens the operator endpoint of `npm run ops` (DATA_DIR/ops.json).
 */
export async function startEmbeddedSystem(
  config: CaManagerConfig,
  options: EmbeddedOptions = {},
): Promise<EmbeddedSystem> {
  refuseSettingsOfOwnProcesses(config);
  const serviceLogger =
    options.serviceLogger ??
    ((service: string) => createLogger({ level: config.logLevel, format: config.logFormat, service }));
  // One tracer provider for the process: spans of every service share it (service.name ca-manager).
  installTracing({ serviceName: 'ca-manager' });
  const embeddedPg = config.databaseUrl ? undefined : await startEmbeddedPostgres(config.dataDir);
  const databaseUrl = config.databaseUrl ?? embeddedPg!.url;
  const open = (name: string, extra: Partial<MessagingOptions> = {}) =>
    openMessaging({
      natsUrl: config.natsUrl,
      databaseUrl,
      name,
      // Issuance runs here: this process owns the streams (creates them, keeps their settings).
      streamRole: 'owner',
      eventRetentionMs: config.eventRetentionMs,
      blobTtlMs: config.blobTtlMs,
      ownDatabase: embeddedPg !== undefined,
      ...options.messaging,
      ...extra,
    });
  const { perService } = options;
  const own = new Map<string, Messaging>();
  const ownMessaging = async (service: string) => {
    const opened = await open(service, {
      ...perService!.messaging(service),
      streamRole: service === 'issuance' ? 'owner' : 'user',
      blobsReadOnly: service === 'gateway' || service === 'acme',
    });
    own.set(service, opened);
    return opened;
  };
  // issuance's first: it creates the streams the others wait for.
  if (perService) await ownMessaging('issuance');
  const messaging = perService ? await ownMessaging('gateway') : await open('ca-manager');
  const runtime = async (service: string): Promise<ServiceRuntime> => ({
    config,
    databaseUrl: perService ? perService.databaseUrl(service) : databaseUrl,
    messaging: perService ? (own.get(service) ?? (await ownMessaging(service))) : messaging,
    logger: serviceLogger(service),
  });
  const services: RunningService[] = [];
  let operatorEndpoint: OperatorEndpoint | undefined;
  const stop = once(async () => {
    await operatorEndpoint?.close();
    for (const service of [...services].reverse()) {
      await service
        .close()
        .catch((err: unknown) =>
          serviceLogger('ca-manager').error({ err }, `stopping ${service.name} failed`),
        );
    }
    for (const opened of own.values()) if (opened !== messaging) await opened.close();
    await messaging.close();
    await embeddedPg?.stop();
  });
  try {
    const issuance = await startIssuance(await runtime('issuance'));
    services.push(issuance);
    services.push(await startRevocation(await runtime('revocation')));
    services.push(await startOcspResponder(await runtime('ocsp-responder')));
    services.push(await startAcme(await runtime('acme')));
    services.push(await startWebhooks(await runtime('webhooks'), options.webhooks));
    services.push(await startGateway(await runtime('gateway')));
    if (embeddedPg) {
      // `npm run ops` cannot open the PGlite files this process holds: it asks here instead.
      operatorEndpoint = await startOperatorEndpoint({
        dataDir: config.dataDir,
        databaseUrl,
        defaultCertificateLimit: config.defaultCertificateLimit,
        logger: serviceLogger('operator-endpoint'),
        issuance: messaging.rpcClient<IssuanceApi>(),
        commandGroups: {
          custody: (args, io) => issuance.runCustodyCommand(args, io),
          events: (args, io) => runDeadLetterCommandOn(databaseUrl, args, io),
        },
      });
    }
  } catch (error) {
    await stop();
    throw error;
  }
  // Each app set Nest's shared Logger to its own on creation (the last one wins); shared classes
  // (relays, consumers, publishers) log as the system instead, with their class as `context`.
  NestLogger.overrideLogger(new NestPinoLogger(serviceLogger('ca-manager')));
  return { services, databaseUrl, messaging, stop };
}

/** `npm run ops -- events …` in this process, on its own database (the services' dead letters). */
async function runDeadLetterCommandOn(
  databaseUrl: string,
  args: readonly string[],
  io: OpsOutput,
): Promise<number> {
  const dataSource = await new DataSource({ type: 'postgres', url: databaseUrl, poolSize: 1 }).initialize();
  try {
    return await runDeadLetterCommand(args, dataSource, io);
  } finally {
    await dataSource.destroy();
  }
}
