import { NestFactory } from '@nestjs/core';
import { EventType, ResponderApi, RevocationApi, WebhooksApi } from '@ca/contracts';
import {
  EventRetention,
  OutboxRelay,
  RpcReplyInterceptor,
  RpcTraceInterceptor,
  DeadLetterReplayer,
  DeadLetterStore,
  each,
  routeValidated,
} from '@ca/messaging';
import { NestPinoLogger, certificateMetrics, messagingMetrics } from '@ca/observability';
import { OpsOutput } from '@ca/operations';
import { openSchemaDataSource } from '@ca/persistence';
import { RunningService, ServiceRuntime, once } from '@ca/runtime';
import { CertificateAuthorityEntity } from './certificate-authority/certificate-authority.entity';
import { PendingCaEntity } from './certificate-authority/pending-ca.entity';
import { CertificateEntity } from './certificates/certificate.entity';
import { runCustodyCommand } from './custody/custody-command';
import { finishInterruptedKekRotation } from './custody/kek-rotation';
import { openIssuanceCustody } from './custody/open-issuance-custody';
import { ExpiryReporter } from './certificates/expiry-report';
import { SqlIssuanceDatabase } from './issuance-database.store';
import { IssuanceModule } from './issuance.module';
import { ISSUANCE_SCHEMA } from './issuance.schema';
import { RevocationJobRunner } from './certificates/revocation-job-runner';
import { ISSUANCE_MIGRATIONS } from './migrations';
import { ResponderPublication } from './publication/responder-publication';
import { WebhooksFeed } from './publication/webhooks-feed';
import { RevocationLedgerFeed } from './publication/revocation-ledger-feed';
import { ISSUANCE_CONSUMER, TenantProjection } from './tenants/tenant.projection';

/** Issuance, running; it also answers the `custody` operator commands (it owns the CA keys). */
export interface IssuanceService extends RunningService {
  runCustodyCommand(args: readonly string[], io: OpsOutput): Promise<number>;
}

/** Starts the issuance context on the given runtime (embedded or distributed alike). */

export async function startIssuance(runtime: ServiceRuntime): Promise<IssuanceService> {
  const { config, messaging } = runtime;
  const custodies = await openIssuanceCustody(config, runtime.logger);
  if (config.pkcs11.root) {
    runtime.logger.info(
      { rootToken: config.pkcs11.root.tokenLabel, issuingToken: config.pkcs11.tokenLabel },
      'root CA keys are kept in a token of their own',
    );
  }
  const dataSource = await openSchemaDataSource({
    url: runtime.databaseUrl,
    schema: ISSUANCE_SCHEMA,
    entities: [CertificateAuthorityEntity, CertificateEntity, PendingCaEntity],
    migrations: ISSUANCE_MIGRATIONS,
  });
  const database = new SqlIssuanceDatabase(dataSource);
  const finished = await finishInterruptedKekRotation(config, database, custodies.main);
  if (finished) runtime.logger.warn(finished, 'finished a KEK rotation that had been interrupted');
  const relay = new OutboxRelay(dataSource, ISSUANCE_SCHEMA, messaging.events, {
    oneStatementAtATime: config.embedded,
  });
  // Read-your-writes: what a command records reaches the responder before the command answers.
  const responder = messaging.rpcClient<ResponderApi>();
  const publication = new ResponderPublication(responder, database.tables.outbox);
  // Early path to webhooks: committed issuances, beside the stream (never waited for).
  const webhooks = messaging.rpcClient<WebhooksApi>();
  // Direct path of bulk revocation batches to the CRL, beside the stream.
  const revocation = messaging.rpcClient<RevocationApi>();
  const app = await NestFactory.createMicroservice(
    IssuanceModule.register({
      database,
      custodies,
      custodyKind: config.keyCustody,
      relay,
      pkiPublicUrl: config.pkiPublicUrl,
      blobs: messaging.blobs,
      defaultCertificateLimit: config.defaultCertificateLimit,
      keyAlgorithm: config.keyAlgorithm,
      publication,
      webhooksFeed: new WebhooksFeed(webhooks),
      revocationLedgerFeed: new RevocationLedgerFeed(revocation),
    }),
    {
      ...messaging.serverOptions('issuance'),
      logger: new NestPinoLogger(runtime.logger),
    },
  );
  // Trace first: it continues the caller's trace around the whole handling, replies included.
  app.useGlobalInterceptors(new RpcTraceInterceptor('issuance'), new RpcReplyInterceptor(messaging.blobs));
  await app.listen();
  relay.start();
  // Bulk revocations a stopped process left unfinished go on from where they stood.
  const jobs = app.get(RevocationJobRunner);
  await jobs.start((error, jobId) =>
    runtime.logger.warn({ err: error, jobId }, 'a revoke-matching job stopped; it is retried'),
  );
  // The gateway's tenant facts (suspension, plan limit), schema-checked, into issuance.tenants.
  const tenants = new TenantProjection(database);
  // A poison event (invalid, or failing every attempt) is set aside here; the others move on.
  const deadLetters = await new DeadLetterStore(dataSource, ISSUANCE_SCHEMA).ensure();
  const routes = routeValidated(
    ISSUANCE_CONSUMER,
    { [EventType.TenantUpdated]: each((e) => tenants.apply(e)) },
    deadLetters,
  );
  const subscription = await messaging.events.subscribe(ISSUANCE_CONSUMER, routes, {
    onlyType: EventType.TenantUpdated,
    deadLetters,
    maxAttempts: config.eventMaxAttempts,
  });
  const replays = new DeadLetterReplayer(deadLetters, ISSUANCE_CONSUMER, routes);
  replays.start();
  // Storage stays bounded: published events and applied inbox rows older than the window go.
  const retention = new EventRetention(dataSource, {
    outboxSchema: ISSUANCE_SCHEMA,
    inboxSchema: ISSUANCE_SCHEMA,
    events: messaging.events,
    retentionMs: config.eventRetentionMs,
  });
  retention.start();
  const expiry = app.get(ExpiryReporter); // the module's instance, not a second one
  const unregisterGauges = [
    certificateMetrics.expiring.register(() => expiry.gaugeSamples()),
    messagingMetrics.outboxBacklog.register(async () => [
      { labels: { service: 'issuance' }, value: await relay.backlog() },
    ]),
    messagingMetrics.consumerPending.register(async () => [
      { labels: { consumer: ISSUANCE_CONSUMER }, value: await messaging.events.pending(ISSUANCE_CONSUMER) },
    ]),
  ];
  return {
    name: 'issuance',
    runCustodyCommand: (args, io) =>
      runCustodyCommand(args, io, { config, database, custody: custodies.main }),
    ready: () => database.ready(),
    close: once(async () => {
      for (const unregister of unregisterGauges) unregister();
      await subscription.stop();
      await replays.stop();
      await jobs.stop();
      await app.close();
      await retention.stop();
      await relay.stop();
      await responder.close();
      await webhooks.close();
      await revocation.close();
      await dataSource.destroy();
      custodies.close();
    }),
  };
}
