import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { NestFactory } from '@nestjs/core';
import { ConfigError } from '@ca/config';
import { EventType } from '@ca/contracts';
import { loadOrCreateLocalKek } from '@ca/custody';
import {
  DeadLetterReplayer,
  DeadLetterStore,
  EventRetention,
  RpcReplyInterceptor,
  RpcTraceInterceptor,
  routeValidated,
} from '@ca/messaging';
import { NestPinoLogger, messagingMetrics, webhookMetrics } from '@ca/observability';
import { openSchemaDataSource } from '@ca/persistence';
import { RunningService, ServiceRuntime, once } from '@ca/runtime';
import { DeliveryScheduler } from './delivery/delivery-scheduler';
import { sendOnce } from './delivery/http-sender';
import { signedHeaders } from './delivery/standard-webhooks';
import { LifecycleEvents } from './events/lifecycle-events';
import { ExpiryScanner } from './expiry/expiry-scanner';
import { WebhookHousekeeping } from './housekeeping';
import { WEBHOOKS_MIGRATIONS } from './migrations';
import { SecretSealer } from './subscriptions/secret-sealer';
import { Subscriptions } from './subscriptions/subscriptions';
import { TargetGuard, TargetRefused } from './targets/target-guard';
import { SqlWebhooksDatabase } from './stores/webhooks-database.store';
import { WebhooksModule } from './webhooks.module';
import { WEBHOOKS_SCHEMA } from './webhooks.schema';

export const WEBHOOKS_CONSUMER = 'webhooks';

/** What a test may change of the service (the expiry scan's clock). */
export interface WebhooksOptions {
  now?: () => Date;
}

/** Attempts in flight per replica, and per subscription (a slow endpoint holds no more than that). */
const CONCURRENCY = 32;
const PER_SUBSCRIPTION = 4;
/**
 * The queue is looked at this often besides the nudges of this process's own events: for retries
 * come due (a second apart at the least, WEBHOOK_RETRY_BASE_SECONDS) and messages another replica
 * left. Each look is a statement, and an idle embedded system pays for it on its one thread.
 */
const POLL_MS = 1_000;

/**
 * Starts the webhooks context: a durable consumer of the event stream that keeps a read model of
 * the certificates it watches for expiry and queues one signed message per event and interested
 * subscription; a delivery scheduler that sends them (Standard Webhooks); the subscriptions' API.
 */
export async function startWebhooks(
  runtime: ServiceRuntime,
  options: WebhooksOptions = {},
): Promise<RunningService> {
  const { config, messaging, logger } = runtime;
  const sealer = openSecretSealer(runtime);
  const dataSource = await openSchemaDataSource({
    url: runtime.databaseUrl,
    schema: WEBHOOKS_SCHEMA,
    entities: [],
    migrations: WEBHOOKS_MIGRATIONS,
  });
  const guard = new TargetGuard(config.webhooks.allowPrivateTargets);
  const database = new SqlWebhooksDatabase(dataSource);
  const store = database.deliveryQueue(`${process.pid}-${randomUUID()}`);
  const secrets = new Map<string, string>();
  const scheduler = new DeliveryScheduler(
    store,
    async (message) => {
      let secret = secrets.get(message.subscriptionId);
      if (!secret) {
        secret = sealer
          .open({ tenantId: message.tenantId, webhookId: message.subscriptionId }, message.sealedSecret)
          .toString('utf8');
        secrets.set(message.subscriptionId, secret);
      }
      let target;
      try {
        target = await guard.check(message.url);
      } catch (error) {
        if (error instanceof TargetRefused)
          return { error: `target refused: ${error.message}`, durationMs: 0 };
        throw error;
      }
      const headers = signedHeaders(secret, message.id, Math.floor(Date.now() / 1000), message.body);
      return sendOnce(target, headers, message.body);
    },
    {
      concurrency: CONCURRENCY,
      perSubscription: PER_SUBSCRIPTION,
      retryBaseMs: config.webhooks.retryBaseSeconds * 1000,
      pollMs: POLL_MS,
      onSettled: (_message, _outcome, settlement) =>
        webhookMetrics.attemptsTotal.inc({
          outcome: 'delivered' in settlement ? 'delivered' : 'failed' in settlement ? 'failed' : 'retry',
        }),
      onError: (err) => logger.warn({ err }, 'webhook delivery step failed; the message is tried again'),
    },
  );
  const nudge = () => scheduler.nudge();
  const subscriptions = new Subscriptions(database, sealer, guard, nudge);
  const lifecycle = new LifecycleEvents(database, nudge);
  const deadLetters = await new DeadLetterStore(dataSource, WEBHOOKS_SCHEMA).ensure();
  const routes = routeValidated(
    WEBHOOKS_CONSUMER,
    {
      [EventType.CertificateIssued]: (events) => lifecycle.issued(events),
      [EventType.CertificateRevoked]: (events) => lifecycle.revoked(events),
      [EventType.CertificateHoldReleased]: (events) => lifecycle.holdReleased(events),
      [EventType.IssuingCaAdded]: (events) => lifecycle.announce(EventType.IssuingCaAdded, events),
      [EventType.CaRevoked]: (events) => lifecycle.announce(EventType.CaRevoked, events),
      [EventType.ReplaceLeavesRequested]: (events) =>
        lifecycle.announce(EventType.ReplaceLeavesRequested, events),
      [EventType.CrlPublished]: (events) => lifecycle.announce(EventType.CrlPublished, events),
    },
    deadLetters,
  );
  let app;
  try {
    app = await NestFactory.createMicroservice(
      WebhooksModule.register({ subscriptions, applyIssued: (events) => lifecycle.issued(events) }),
      {
        ...messaging.serverOptions('webhooks'),
        logger: new NestPinoLogger(logger),
      },
    );
    app.useGlobalInterceptors(new RpcTraceInterceptor('webhooks'), new RpcReplyInterceptor(messaging.blobs));
    await app.listen();
  } catch (error) {
    await app?.close();
    await dataSource.destroy();
    throw error;
  }
  const started = app;
  const subscription = await messaging.events.subscribe(WEBHOOKS_CONSUMER, routes, {
    deadLetters,
    maxAttempts: config.eventMaxAttempts,
  });
  const replays = new DeadLetterReplayer(deadLetters, WEBHOOKS_CONSUMER, routes);
  replays.start();
  scheduler.start();
  const scanner = new ExpiryScanner(
    database,
    config.webhooks.expiryScanSeconds * 1000,
    nudge,
    (err) => logger.warn({ err }, 'expiry scan failed; the next one tries again'),
    options.now,
  );
  scanner.start();
  const retention = new EventRetention(dataSource, {
    inboxSchema: WEBHOOKS_SCHEMA,
    events: messaging.events,
    retentionMs: config.eventRetentionMs,
  });
  retention.start();
  const housekeeping = new WebhookHousekeeping(database.retention, config.eventRetentionMs, (err) =>
    logger.warn({ err }, 'webhook housekeeping failed; the next run tries again'),
  );
  housekeeping.start();
  const unregisterGauges = [
    webhookMetrics.pending.register(async () => [
      { labels: { service: 'webhooks' }, value: await store.pending() },
    ]),
    messagingMetrics.consumerPending.register(async () => [
      {
        labels: { consumer: WEBHOOKS_CONSUMER },
        value: await messaging.events.pending(WEBHOOKS_CONSUMER),
      },
    ]),
  ];
  return {
    name: 'webhooks',
    ready: () => database.ready(),
    close: once(async () => {
      for (const unregister of unregisterGauges) unregister();
      await scanner.stop();
      await housekeeping.stop();
      await retention.stop();
      await started.close();
      await subscription.stop();
      await replays.stop();
      await scheduler.stop();
      await dataSource.destroy();
    }),
  };
}

/** Signing secrets are sealed under a KEK of the webhooks context's own (in embedded mode, its own file). */
function openSecretSealer({ config }: ServiceRuntime): SecretSealer {
  try {
    const kek = loadOrCreateLocalKek({
      kekBase64: config.caKek,
      dataDir: join(config.dataDir, 'webhooks'),
      embedded: config.embedded,
    });
    return new SecretSealer(kek);
  } catch (error) {
    const problem = error instanceof Error ? error.message.replace(/^CA_KEK:?\s*/, '') : 'is not usable';
    throw new ConfigError('CA_KEK', problem);
  }
}
