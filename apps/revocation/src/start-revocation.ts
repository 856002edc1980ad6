import { NestFactory } from '@nestjs/core';
import { IssuanceApi, ResponderApi } from '@ca/contracts';
import {
  DeadLetterReplayer,
  DeadLetterStore,
  EventRetention,
  OutboxRelay,
  RpcReplyInterceptor,
  RpcTraceInterceptor,
  routeValidated,
} from '@ca/messaging';
import { NestPinoLogger, messagingMetrics } from '@ca/observability';
import { openSchemaDataSource } from '@ca/persistence';
import { RunningService, ServiceRuntime, once } from '@ca/runtime';
import { CrlBlobSweeper } from './crls/crl-blob.sweeper';
import { CrlRefreshScheduler } from './crls/crl-refresh.scheduler';
import { CrlPublisher } from './crls/crl.publisher';
import { RootCrlPublisher } from './crls/root-crl.publisher';
import { REVOCATION_MIGRATIONS } from './migrations';
import { RevocationEvents } from './revocation.events';
import { RevocationModule } from './revocation.module';
import { REVOCATION_SCHEMA } from './revocation.schema';
import { RevocationDatabase } from './stores/revocation-database.store';

export const REVOCATION_CONSUMER = 'revocation';

/**
 * Starts the revocation context: a Nest microservice on the bus (queue group `revocation`, answering
 * issuance's direct path of bulk revocations), with a durable consumer of the event stream that keeps the revoked
 * entries and publishes a new CRL after each change (within seconds) and before each nextUpdate.
 */
export async function startRevocation(runtime: ServiceRuntime): Promise<RunningService> {
  const { config, messaging } = runtime;
  const dataSource = await openSchemaDataSource({
    url: runtime.databaseUrl,
    schema: REVOCATION_SCHEMA,
    entities: [],
    migrations: REVOCATION_MIGRATIONS,
  });
  const relay = new OutboxRelay(dataSource, REVOCATION_SCHEMA, messaging.events, {
    oneStatementAtATime: config.embedded,
  });
  const issuance = messaging.rpcClient<IssuanceApi>();
  const responder = messaging.rpcClient<ResponderApi>();
  let app;
  try {
    app = await NestFactory.createMicroservice(
      RevocationModule.register({ dataSource, issuance, blobs: messaging.blobs, relay, responder }),
      { ...messaging.serverOptions(REVOCATION_CONSUMER), logger: new NestPinoLogger(runtime.logger) },
    );
    app.useGlobalInterceptors(
      new RpcTraceInterceptor(REVOCATION_CONSUMER),
      new RpcReplyInterceptor(messaging.blobs),
    );
    await app.listen();
  } catch (error) {
    // Nothing else has started yet: release what was opened and report why start-up failed.
    await app?.close();
    await issuance.close();
    await responder.close();
    await dataSource.destroy();
    throw error;
  }
  const started = app;
  const database = app.get(RevocationDatabase);
  const publisher = app.get(CrlPublisher);
  const rootPublisher = app.get(RootCrlPublisher);
  // A poison event (invalid, or failing every attempt) is set aside here; the others move on.
  const deadLetters = await new DeadLetterStore(dataSource, REVOCATION_SCHEMA).ensure();
  const routes = routeValidated(REVOCATION_CONSUMER, app.get(RevocationEvents).handlers(), deadLetters);
  const subscription = await messaging.events.subscribe(
    REVOCATION_CONSUMER,
    // Schema-checked: an event that does not parse is logged, counted and set aside.
    routes,
    { deadLetters, maxAttempts: config.eventMaxAttempts },
  );
  const replays = new DeadLetterReplayer(deadLetters, REVOCATION_CONSUMER, routes);
  replays.start();
  relay.start();
  const scheduler = app.get(CrlRefreshScheduler);
  scheduler.start();
  // Storage stays bounded: old published events, inbox ids and stream messages; superseded CRL blobs.
  const retention = new EventRetention(dataSource, {
    outboxSchema: REVOCATION_SCHEMA,
    inboxSchema: REVOCATION_SCHEMA,
    events: messaging.events,
    retentionMs: config.eventRetentionMs,
  });
  retention.start();
  const crlBlobs = app.get(CrlBlobSweeper);
  crlBlobs.start();
  const unregisterGauges = [
    messagingMetrics.outboxBacklog.register(async () => [
      { labels: { service: 'revocation' }, value: await relay.backlog() },
    ]),
    messagingMetrics.consumerPending.register(async () => [
      {
        labels: { consumer: REVOCATION_CONSUMER },
        value: await messaging.events.pending(REVOCATION_CONSUMER),
      },
    ]),
  ];
  return {
    name: 'revocation',
    ready: () => database.ready(),
    close: once(async () => {
      for (const unregister of unregisterGauges) unregister();
      scheduler.stop();
      await retention.stop();
      await crlBlobs.stop();
      await subscription.stop();
      await replays.stop();
      await publisher.idle();
      await rootPublisher.idle();
      await relay.stop();
      await started.close();
      await issuance.close();
      await responder.close();
      await dataSource.destroy();
    }),
  };
}
