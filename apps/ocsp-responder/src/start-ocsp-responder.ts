import { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { ConfigError } from '@ca/config';
import {
  CaInitializedPayload,
  CaRevokedPayload,
  CrlPublishedPayload,
  EventEnvelope,
  EventType,
  IssuanceApi,
  IssuingCaAddedPayload,
  RootRenewedPayload,
} from '@ca/contracts';
import { KeyCustody, LocalKeyCustody, loadOrCreateLocalKek } from '@ca/custody';
import {
  DeadLetterReplayer,
  DeadLetterStore,
  EventRetention,
  RpcReplyInterceptor,
  RpcTraceInterceptor,
  each,
  routeValidated,
} from '@ca/messaging';
import { NestPinoLogger, httpObservability } from '@ca/observability';
import { openSchemaDataSource } from '@ca/persistence';
import {
  RunningService,
  ServiceRuntime,
  applyHttpLimits,
  configureMetricsAccess,
  once,
  publicMetricsMiddleware,
} from '@ca/runtime';
import { CaCertificateStore } from './ca-certificates/ca-certificate.store';
import { IssuanceCaCheck } from './ca-certificates/issuance-ca-check';
import { CertificateStatusProjection } from './certificate-status/certificate-status.projection';
import { SqlCertificateStatusStore } from './certificate-status/certificate-status.store';
import { StatusChangeListener } from './certificate-status/status-change.listener';
import { ADDED_CA_CRLS, CrlStore, ROOT_CRLS } from './crls/crl.store';
import { OCSP_MIGRATIONS } from './migrations';
import { OcspHttp } from './ocsp/ocsp.http';
import { OcspResponseCache } from './ocsp/ocsp-response.cache';
import { DEFAULT_OCSP_LIMITS, OcspResponder } from './ocsp/ocsp.responder';
import { installOcspFastFront } from './http/ocsp-fast-front';
import { PublicSurfaceErrorsFilter } from './http/public-surface-errors.filter';
import { PublicSurfaceRouter, publicSurfaceRouter } from './http/public-surface.router';
import { OcspResponderModule } from './ocsp-responder.module';
import { fastAnswerMetrics, publicSurfaceRouteOf, registerResponderGauges } from './observability';
import { OCSP_SCHEMA } from './ocsp.schema';
import { OcspSignerKeeper } from './signers/ocsp-signer.keeper';
import { ADDED_CA_SIGNERS, ROOT_SIGNERS, SqlOcspSignerStore } from './signers/ocsp-signer.store';
import { SqlRequestedSignerStore } from './signers/requested-signer.store';
import { SqlServedCrlStore } from './crls/served-crl.store';
import { SqlOcspDatabase } from './ocsp-database.store';
import { IssuingCaAnswers } from './ocsp/issuing-ca-answers';
import { SignerAnnouncements } from './signers/signer-announcements';
import { RenewedRootAnswers } from './ocsp/renewed-root-answers';
import { CaEventAppliers, DirectPublication } from './publication/direct-publication';
import { PublicationModule } from './publication/publication.module';

/** Durable consumer name: the responder's position in the event stream. */
export const OCSP_CONSUMER = 'ocsp-responder';

const logger = new Logger('OcspResponder');

/**
 * Starts the public surface on PKI_PORT. It answers from its own schema only, so it keeps
 * serving CA certificates, CRLs and OCSP while the gateway and issuance are down.
 */
export async function startOcspResponder(runtime: ServiceRuntime): Promise<RunningService> {
  const { config, messaging } = runtime;
  const custody = openResponderCustody(runtime);
  const dataSource = await openSchemaDataSource({
    url: runtime.databaseUrl,
    schema: OCSP_SCHEMA,
    entities: [],
    migrations: OCSP_MIGRATIONS,
  });
  const issuance = messaging.rpcClient<IssuanceApi>();
  const caCertificates = new CaCertificateStore(dataSource);
  const statuses = new CertificateStatusProjection(new SqlCertificateStatusStore(dataSource));
  const crls = new CrlStore(dataSource, messaging.blobs);
  const rootCrls = new CrlStore(dataSource, messaging.blobs, ROOT_CRLS);
  const addedCaCrls = new CrlStore(dataSource, messaging.blobs, ADDED_CA_CRLS);
  const servedCrls = new SqlServedCrlStore(dataSource);
  const requestedSigners = new SqlRequestedSignerStore(dataSource);
  const signers = new OcspSignerKeeper(
    new SqlOcspSignerStore(dataSource),
    requestedSigners,
    custody,
    issuance,
  );
  // A second signer per tenant with an issuing CA, certified by the root, answers for that CA.
  const rootSigners = new OcspSignerKeeper(
    new SqlOcspSignerStore(dataSource, ROOT_SIGNERS),
    requestedSigners,
    custody,
    issuance,
  );
  // One per issuing CA added later, certified by that CA (docs/api.md#add-an-issuing-ca).
  const addedSigners = new OcspSignerKeeper(
    new SqlOcspSignerStore(dataSource, ADDED_CA_SIGNERS),
    requestedSigners,
    custody,
    issuance,
  );
  const signerAnnouncements = new SignerAnnouncements(requestedSigners);
  const caCheck = new IssuanceCaCheck(issuance);
  const ocspLimits = { ...DEFAULT_OCSP_LIMITS, ...config.ocsp };
  const responder = new OcspResponder(
    caCertificates,
    statuses,
    signers,
    new OcspResponseCache(config.ocsp.cacheMaxBytes),
    ocspLimits,
    new IssuingCaAnswers(caCertificates, rootSigners, ocspLimits.validitySeconds, signers),
    addedSigners,
    new RenewedRootAnswers(caCertificates, addedSigners, ocspLimits.validitySeconds),
  );
  const database = new SqlOcspDatabase(dataSource);
  const ready = () => database.ready();
  const app = await NestFactory.create<NestExpressApplication>(OcspResponderModule.register({ ready }), {
    logger: new NestPinoLogger(runtime.logger),
    bodyParser: false,
  });
  app.disable('x-powered-by');
  applyHttpLimits(app.getHttpServer(), config.http);
  app.useGlobalFilters(new PublicSurfaceErrorsFilter());
  // The public port names no tenant; per-tenant series are on the admin port. Under npm start the
  // services share one process, so this also sets the token the admin port's /metrics requires.
  configureMetricsAccess({ token: config.metricsToken });
  app.use(publicMetricsMiddleware);
  const ocsp = new OcspHttp(responder);
  routePublicSurfaceFirst(app, publicSurfaceRouter({ caCertificates, crls, rootCrls, addedCaCrls, ocsp }));
  if (config.ocsp.fastFront)
    installOcspFastFront(
      app.getHttpServer(),
      (request) => ocsp.simpleFromMemory(request),
      fastAnswerMetrics('ocsp-responder'),
    );
  try {
    await app.listen(config.pkiPort, config.host);
  } catch (error) {
    // Nothing else has started yet: release what was opened and report why start-up failed.
    await app.close();
    await issuance.close();
    await dataSource.destroy();
    throw error;
  }
  /**
   * A tenant's CAs from `ca.initialized`, only as issuance vouches for them (docs/security.md, "CA
   * certificates on the responder"): asked over the bus, unless the event came from issuance
   * itself on a channel only its user may use (`fromIssuance`). A squatted event is refused; a
   * squatted row is replaced by what issuance vouches for.
   */
  const applyCaInitialized = async (e: EventEnvelope<CaInitializedPayload>, fromIssuance = false) => {
    const problem = fromIssuance ? undefined : await caCheck.problem(e);
    if (problem) {
      logger.error(
        { eventId: e.id, tenantId: e.tenantId, caId: e.payload.caId, reason: problem },
        'ca.initialized refused: issuance does not vouch for these CA certificates',
      );
      return;
    }
    if (await caCertificates.apply(e, true)) {
      logger.error(
        { eventId: e.id, tenantId: e.tenantId, caId: e.payload.caId },
        'ca.initialized replaced CA certificates issuance does not vouch for, and the CRLs checked against them',
      );
    }
    const made = [signers.ensure(e.tenantId)];
    // A corporate root (docs/api.md#external-root) has no key here to certify a signer.
    if (e.payload.issuingCaId && !e.payload.externalRoot) made.push(rootSigners.ensure(e.tenantId));
    // On the direct path the signers are awaited too: OCSP answers (not tryLater) once it returns.
    if (fromIssuance) await Promise.all(made);
  };
  // A poison event (invalid, or failing every attempt) is set aside here; the others move on.
  const deadLetters = await new DeadLetterStore(dataSource, OCSP_SCHEMA).ensure();
  // CA events are applied the same way on the event path and on issuance's direct path.
  const caEvents: CaEventAppliers = {
    // The direct path is issuance's own (only its user may publish it): no need to ask it again.
    [EventType.CaInitialized]: (event, direct) =>
      applyCaInitialized(event as EventEnvelope<CaInitializedPayload>, direct),
    // docs/api.md#renew-the-root: the new root (checked), then its signer for its issuing CAs.
    [EventType.RootRenewed]: async (event, direct) => {
      const e = event as EventEnvelope<RootRenewedPayload>;
      if (!(await caCertificates.applyRootRenewed(e))) return;
      const made = addedSigners.ensure(e.payload.caId);
      if (direct) await made;
    },
    [EventType.IssuingCaAdded]: async (event, direct) => {
      const e = event as EventEnvelope<IssuingCaAddedPayload>;
      // Only an issuing CA the tenant's root signed.
      if (!(await caCertificates.applyIssuingAdded(e))) return;
      const made = addedSigners.ensure(e.payload.caId);
      if (direct) await made;
    },
    [EventType.CaRevoked]: (event) => caCertificates.applyCaRevoked(event as EventEnvelope<CaRevokedPayload>),
  };
  const applyCrlPublished = async (e: EventEnvelope<CrlPublishedPayload>): Promise<void> => {
    if (e.payload.issuer === 'root') return rootCrls.apply(e);
    // The CRL of an issuing CA added later has a store of its own; any other, the tenant's.
    const added = e.payload.caId && (await caCertificates.isAdded(e.payload.caId));
    return (added ? addedCaCrls : crls).apply(e);
  };
  const routes = routeValidated(
    OCSP_CONSUMER,
    {
      [EventType.CaInitialized]: each((e) => caEvents[EventType.CaInitialized](e)),
      [EventType.RootRenewed]: each((e) => caEvents[EventType.RootRenewed](e)),
      [EventType.IssuingCaAdded]: each((e) => caEvents[EventType.IssuingCaAdded](e)),
      [EventType.CaRevoked]: each((e) => caEvents[EventType.CaRevoked](e)),
      // Issuances come in bursts: one transaction per run instead of one per certificate.
      [EventType.CertificateIssued]: (events) => statuses.applyIssuedBatch(events),
      // A bulk revocation's too: its runs in one transaction each.
      [EventType.CertificateRevoked]: (events) => statuses.applyRevokedBatch(events),
      [EventType.CertificateHoldReleased]: each((e) => statuses.applyHoldReleased(e)),
      [EventType.OcspSignerCertified]: each(async (e) => {
        await signerAnnouncements.check(e);
      }),
      [EventType.CrlPublished]: each(applyCrlPublished),
    },
    deadLetters,
  );
  const subscription = await messaging.events.subscribe(
    OCSP_CONSUMER,
    // Schema-checked: an event that does not parse is logged, counted and set aside.
    // Each handler gets a run of consecutive events of its type (a single event is a run of one).
    routes,
    { deadLetters, maxAttempts: config.eventMaxAttempts },
  );
  // Issuance's direct path (docs/architecture.md#read-your-writes): every replica answers it,
  // queue group "ocsp-responder", so issuance waits for one of them, whichever is up.
  const publication = await NestFactory.createMicroservice(
    PublicationModule.register(
      new DirectPublication(servedCrls, statuses, caEvents, Date.now, applyCrlPublished),
    ),
    { ...messaging.serverOptions(OCSP_CONSUMER), logger: new NestPinoLogger(runtime.logger) },
  );
  publication.useGlobalInterceptors(
    new RpcTraceInterceptor('ocsp-responder'),
    new RpcReplyInterceptor(messaging.blobs),
  );
  await publication.listen();
  const replays = new DeadLetterReplayer(deadLetters, OCSP_CONSUMER, routes);
  replays.start();
  signers.start();
  rootSigners.start();
  addedSigners.start();
  crls.copyPending(); // what a previous run left pending
  rootCrls.copyPending();
  addedCaCrls.copyPending();
  // Embedded, the database is this process's alone: no other replica can revoke.
  await statuses.watchChanges({ otherReplicas: !config.embedded });
  const statusChanges = config.embedded
    ? undefined
    : new StatusChangeListener(runtime.databaseUrl, () => {
        // The notification names nothing (any role may listen): re-read statuses, forget CAs.
        statuses.changedElsewhere();
        caCertificates.changedElsewhere();
      });
  if (!config.embedded) caCertificates.notifyOtherReplicas();
  await statusChanges?.start();
  const unregisterGauges = registerResponderGauges(servedCrls, messaging.events, OCSP_CONSUMER);
  // Storage stays bounded: inbox ids and stream messages older than the retention window go.
  const retention = new EventRetention(dataSource, {
    inboxSchema: OCSP_SCHEMA,
    events: messaging.events,
    retentionMs: config.eventRetentionMs,
  });
  retention.start();
  return {
    name: 'ocsp-responder',
    ready,
    close: once(async () => {
      unregisterGauges();
      await retention.stop();
      await publication.close();
      await app.close();
      await subscription.stop();
      await replays.stop();
      await signers.stop();
      await rootSigners.stop();
      await addedSigners.stop();
      await crls.stop();
      await rootCrls.stop();
      await addedCaCrls.stop();
      await statuses.stopWatching();
      await statusChanges?.stop();
      await issuance.close();
      await dataSource.destroy();
    }),
  };
}

/**
 * Puts the public surface's router in front of Express on the server Nest listens with: relying
 * parties' requests never go through Express middleware; everything else still does.
 */
function routePublicSurfaceFirst(app: NestExpressApplication, router: PublicSurfaceRouter): void {
  const server: Server = app.getHttpServer();
  const express = app.getHttpAdapter().getInstance() as RequestListener;
  server.removeListener('request', express);
  // Request metrics of every answer, public or not (no span: this is the hot path).
  const observe = httpObservability({
    service: 'ocsp-responder',
    routeOf: publicSurfaceRouteOf,
    tracing: false,
  });
  server.on('request', (req: IncomingMessage, res: ServerResponse) =>
    observe(req, res, () => {
      if (!router(req, res)) express(req, res);
    }),
  );
}

/** The responder's delegated keys are under a KEK of its own (in embedded mode, its own file). */
function openResponderCustody({ config }: ServiceRuntime): KeyCustody {
  try {
    const kek = loadOrCreateLocalKek({
      kekBase64: config.caKek,
      dataDir: join(config.dataDir, 'ocsp-responder'),
      embedded: config.embedded,
    });
    return new LocalKeyCustody(kek);
  } catch (error) {
    const problem = error instanceof Error ? error.message.replace(/^CA_KEK:?\s*/, '') : 'is not usable';
    throw new ConfigError('CA_KEK', problem);
  }
}
