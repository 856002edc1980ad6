import { EventType, IssuanceApi } from '@ca/contracts';
import {
  DeadLetterReplayer,
  DeadLetterStore,
  EventRetention,
  OutboxRelay,
  each,
  routeValidated,
} from '@ca/messaging';
import { messagingMetrics } from '@ca/observability';
import { openSchemaDataSource } from '@ca/persistence';
import { RunningService, ServiceRuntime, once } from '@ca/runtime';
import { RevocationLedger } from './ledger/revocation.ledger';
import { LedgerReconciliation } from './ledger/ledger-reconciliation';
import { registerRenewedRoot } from './ledger/renewed-root.ledger';
import { CrlBlobSweeper } from './crls/crl-blob.sweeper';
import { CrlRefreshScheduler } from './crls/crl-refresh.scheduler';
import { CrlPublisher } from './crls/crl.publisher';
import { RootCrlPublisher } from './crls/root-crl.publisher';
import { REVOCATION_MIGRATIONS } from './migrations';
import { REVOCATION_SCHEMA } from './revocation.schema';

export const REVOCATION_CONSUMER = 'revocation';

/**
 * Starts the revocation context: a durable consumer of the event stream that keeps the revoked
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
  const relay = new OutboxRelay(dataSource, REVOCATION_SCHEMA, messaging.events);
  const issuance = messaging.rpcClient<IssuanceApi>();
  const ledger = new RevocationLedger(dataSource);
  const reconciliation = new LedgerReconciliation(dataSource, issuance);
  const publishing = {
    dataSource,
    issuance,
    blobs: messaging.blobs,
    relay,
    reconcile: (tenantId: string, caId: string) => reconciliation.reconcile(tenantId, caId),
  };
  const publisher = new CrlPublisher(publishing);
  const rootPublisher = new RootCrlPublisher(publishing);
  const scheduler = new CrlRefreshScheduler(dataSource, publisher, rootPublisher);
  // Publication is not awaited in the handler: the stream moves on while the CRL is built, and a
  // failed build is retried by the scheduler, so one CA's CRL never holds up the others' events.
  // A poison event (invalid, or failing every attempt) is set aside here; the others move on.
  const deadLetters = await new DeadLetterStore(dataSource, REVOCATION_SCHEMA).ensure();
  const routes = routeValidated(
    REVOCATION_CONSUMER,
    {
      [EventType.CaInitialized]: each(async (e) => {
        void publisher.request(await ledger.registerIssuer(e));
        void rootPublisher.request(e.tenantId);
      }),
      [EventType.IssuingCaAdded]: each(async (e) => {
        // Its first CRL (empty) at once; the CA it replaced keeps its own (docs/api.md#add-an-issuing-ca).
        if (await ledger.registerAddedIssuer(e)) void publisher.request(e.payload.caId);
      }),
      [EventType.RootRenewed]: each(async (e) => {
        // The new root's first CRL (empty); the old root keeps its own (docs/api.md#renew-the-root).
        if (await registerRenewedRoot(dataSource, e)) void publisher.request(e.payload.caId);
      }),
      [EventType.CaRevoked]: each(async (e) => {
        const recorded = await ledger.recordCaRevocation(e);
        if (recorded?.rootCrl) void rootPublisher.request(e.tenantId);
        else if (recorded) void publisher.request(recorded.caId);
      }),
      // A run of revocations (a bulk revocation's) in one transaction; only a new entry changes
      // the CRL: a replayed or refused event must not have one signed.
      [EventType.CertificateRevoked]: async (events) => {
        for (const caId of await ledger.recordRevocations(events)) void publisher.request(caId);
      },
      [EventType.CertificateHoldReleased]: each(async (e) => {
        if (await ledger.releaseHold(e)) void publisher.request(e.payload.caId);
      }),
    },
    deadLetters,
  );
  const subscription = await messaging.events.subscribe(
    REVOCATION_CONSUMER,
    // Schema-checked: an event that does not parse is logged, counted and set aside.
    routes,
    { deadLetters, maxAttempts: config.eventMaxAttempts },
  );
  const replays = new DeadLetterReplayer(deadLetters, REVOCATION_CONSUMER, routes);
  replays.start();
  relay.start();
  scheduler.start();
  // Storage stays bounded: old published events, inbox ids and stream messages; superseded CRL blobs.
  const retention = new EventRetention(dataSource, {
    outboxSchema: REVOCATION_SCHEMA,
    inboxSchema: REVOCATION_SCHEMA,
    events: messaging.events,
    retentionMs: config.eventRetentionMs,
  });
  retention.start();
  const crlBlobs = new CrlBlobSweeper(dataSource, messaging.blobs);
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
    ready: async () => dataSource.isInitialized && (await dataSource.query('SELECT 1')) !== undefined,
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
      await issuance.close();
      await dataSource.destroy();
    }),
  };
}
