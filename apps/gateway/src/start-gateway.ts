import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { AcmeApi, IssuanceApi, WebhooksApi } from '@ca/contracts';
import { EventRetention, OutboxRelay } from '@ca/messaging';
import { NestPinoLogger, messagingMetrics } from '@ca/observability';
import { SqlRateLimitWindowStore } from '@ca/persistence';
import { RunningService, ServiceRuntime, applyHttpLimits, once } from '@ca/runtime';
import { acmeEdge } from './acme/acme-edge';
import { auditMiddleware } from './audit/audit.middleware';
import { AuditStore } from './audit/audit.store';
import { AuditWriter } from './audit/audit-writer';
import { JobAuditFollower } from './audit/job-audit-follower';
import { SqlJobAuditStore } from './audit/job-audit.store';
import { AuthFailureLimiter } from './auth/auth-failure-limiter';
import { loadOrCreateDevelopmentJwtKeys } from './auth/development-jwt-keys';
import { TokenVerifier } from './auth/token-verifier';
import { uncheckedClaimsWarning } from './auth/unchecked-claims-warning';
import { DownloadLinks } from './downloads/download-links';
import { DownloadStore } from './downloads/download.store';
import { consoleSite } from './console/console-site';
import { openGatewayDatabase } from './gateway-database';
import { GatewayDatabase } from './gateway-database.store';
import { GATEWAY_SCHEMA } from './gateway.schema';
import { GatewayModule } from './gateway.module';
import { GatewayHousekeeping } from './housekeeping';
import { applyHeaderLimits } from './http/header-limits';
import { JsonBodyPipe } from './http/json-body.pipe';
import { TextParamPipe } from './http/text-param.pipe';
import { verifyJsonBody } from './http/json-body-verifier';
import { mountObservability } from './http/observability';
import { requestIdMiddleware } from './http/request-id';
import { mountOpenApi } from './openapi/openapi';
import { GATEWAY_RATE_LIMIT_WINDOWS, RateLimiter } from './rate-limit/rate-limiter';
import { TenantDirectory } from './tenants/tenant-directory';
import { TenantStore } from './tenants/tenant.store';
import { tooManyRequestsProblem } from './http/too-many-requests';

/**
 * Tenant changes are rare, so a poll is an index probe that finds nothing (partial index). Often
 * enough that a change `npm run ops` made from another process (which cannot nudge this relay)
 * reaches issuance well before the gateway's own tenant cache expires (TENANT_CACHE_TTL_MS, 2 s);
 * not more often, since an idle embedded system pays for every probe on its one thread.
 */
const GATEWAY_OUTBOX_POLL_MS = 500;

/** Request bodies of this API are small; anything larger is refused before parsing (413). */
const BODY_LIMIT = '64kb';

export interface GatewayOptions {
  /** The time download links are made and checked by (tests move it past a link's hour). */
  clock?: () => Date;
}

/** Starts the administrative API on GATEWAY_PORT, with its own schema (tenants, audit, rate limits, downloads). */
export async function startGateway(
  runtime: ServiceRuntime,
  options: GatewayOptions = {},
): Promise<RunningService> {
  const { config, messaging, logger } = runtime;
  const jwt =
    config.jwt.publicKeyPem || config.jwt.jwksUri
      ? config.jwt
      : { ...config.jwt, publicKeyPem: loadOrCreateDevelopmentJwtKeys(config.dataDir).publicKeyPem };
  const claimsWarning = uncheckedClaimsWarning(config.jwt);
  if (claimsWarning) logger.warn({}, claimsWarning);
  const tokenVerifier = await TokenVerifier.create(jwt);
  const dataSource = await openGatewayDatabase(runtime.databaseUrl, 10);
  // tenant.updated (creation, suspension, plan limit) goes out through the gateway's own outbox.
  // Polled often: `npm run ops` records it from another process (or another connection), which
  // cannot nudge this relay, and issuance enforces nothing newer than what it has received.
  const relay = new OutboxRelay(dataSource, GATEWAY_SCHEMA, messaging.events, {
    pollMs: GATEWAY_OUTBOX_POLL_MS,
    oneStatementAtATime: config.embedded,
  });
  const tenantStore = new TenantStore(dataSource, {
    defaultCertificateLimit: config.defaultCertificateLimit,
    onEventsRecorded: () => relay.nudge(),
  });
  const tenants = new TenantDirectory(tenantStore);
  const rateLimiter = new RateLimiter(
    new SqlRateLimitWindowStore(dataSource, GATEWAY_RATE_LIMIT_WINDOWS),
    config.rateLimitPerMinute,
  );
  const auditStore = new AuditStore(dataSource);
  const audit = new AuditWriter(auditStore, logger);
  const authFailures = new AuthFailureLimiter(config.authFailureLimitPerMinute, (entry) =>
    audit.record(entry),
  );
  const downloads = new DownloadLinks(
    new DownloadStore(dataSource),
    config.gatewayPublicUrl,
    options.clock,
    config.downloadLinkTtlMs,
  );
  const housekeeping = new GatewayHousekeeping(auditStore, rateLimiter, logger, {}, downloads);
  const issuance = messaging.rpcClient<IssuanceApi>();
  const acme = messaging.rpcClient<AcmeApi>();
  const webhooks = messaging.rpcClient<WebhooksApi>();
  const jobAudits = new JobAuditFollower(new SqlJobAuditStore(dataSource, auditStore), issuance, (err) =>
    logger.warn({ err }, 'auditing a bulk revocation job failed; tried again'),
  );
  const database = new GatewayDatabase(dataSource);
  const ready = () => database.ready();
  let app: NestExpressApplication | undefined;
  try {
    app = await NestFactory.create<NestExpressApplication>(
      GatewayModule.register({
        tokenVerifier,
        issuance,
        acme,
        webhooks,
        tenants,
        rateLimiter,
        authFailures,
        downloads,
        errorCatalogUrl: config.errorCatalogUrl,
        keyAlgorithm: config.keyAlgorithm,
        ready,
        jobAudits,
        audit: auditStore,
        console: consoleSite({ pkiPublicUrl: config.pkiPublicUrl, oidc: config.console.oidc }),
      }),
      { logger: new NestPinoLogger(runtime.logger), bodyParser: false },
    );
    app.disable('x-powered-by');
    // docs/api.md#conventions: no edge caching of the admin API; some answers hold a private key (returned once).
    app.set('etag', false);
    app.use((_req: unknown, res: { setHeader(name: string, value: string): void }, next: () => void) => {
      res.setHeader('Cache-Control', 'no-store');
      next();
    });
    // First, so that even a body that cannot be parsed gets its request id (docs/api.md#errors) and is audited.
    app.use(requestIdMiddleware);
    mountObservability(app, logger);
    app.use(auditMiddleware((entry) => audit.record(entry)));
    // ACME requests are answered here, before the admin API's JSON parsing and Nest (acme-edge.ts).
    app.use(acmeEdge(acme));
    app.useBodyParser('json', { limit: BODY_LIMIT, type: () => true, strict: false, verify: verifyJsonBody });
    app.useGlobalPipes(new TextParamPipe(), new JsonBodyPipe());
    mountOpenApi(app);
    applyHeaderLimits(app.getHttpServer(), config.errorCatalogUrl);
    applyHttpLimits(app.getHttpServer(), config.http, tooManyRequestsProblem(config.errorCatalogUrl));
    await app.listen(config.gatewayPort, config.host);
    // Tenants older than the outbox: their state goes out once, so issuance knows them too.
    while ((await tenantStore.announcePending()) > 0);
  } catch (error) {
    await app?.close();
    await issuance.close();
    await acme.close();
    await webhooks.close();
    await dataSource.destroy();
    throw error;
  }
  const started = app;
  relay.start();
  jobAudits.start();
  // Storage stays bounded: published tenant.updated rows older than the retention window go.
  const retention = new EventRetention(dataSource, {
    outboxSchema: GATEWAY_SCHEMA,
    retentionMs: config.eventRetentionMs,
  });
  retention.start();
  housekeeping.start();
  authFailures.start();
  const unregisterBacklog = messagingMetrics.outboxBacklog.register(async () => [
    { labels: { service: 'gateway' }, value: await relay.backlog() },
  ]);
  return {
    name: 'gateway',
    ready,
    close: once(async () => {
      unregisterBacklog();
      await started.close();
      await jobAudits.stop();
      await housekeeping.stop();
      authFailures.stop();
      await relay.stop();
      await retention.stop();
      await audit.close();
      await issuance.close();
      await acme.close();
      await webhooks.close();
      await dataSource.destroy();
    }),
  };
}
