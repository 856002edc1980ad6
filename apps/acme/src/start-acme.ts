import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { NestFactory } from '@nestjs/core';
import { ConfigError } from '@ca/config';
import { IssuanceApi } from '@ca/contracts';
import { loadOrCreateLocalKek } from '@ca/custody';
import { RpcReplyInterceptor, RpcTraceInterceptor } from '@ca/messaging';
import { NestPinoLogger } from '@ca/observability';
import { openSchemaDataSource } from '@ca/persistence';
import { RunningService, ServiceRuntime, once } from '@ca/runtime';
import { ACME_SCHEMA } from './acme.schema';
import { AcmeModule } from './acme.module';
import { EabKeySealer } from './eab/eab-key-sealer';
import { EabKeys } from './eab/eab-keys';
import { AcmeHousekeeping } from './housekeeping';
import { acmeMigrations } from './migrations';
import { AcmeProfiles } from './profiles/acme-profiles';
import {
  accountOrdersResource,
  accountResource,
  keyChangeResource,
  newAccountResource,
} from './protocol/account-resources';
import { SharedAcmeRateLimiter } from './protocol/acme-rate-limiter';
import { AcmeServer } from './protocol/acme-server';
import { KnownTenants, issuanceHasCa } from './protocol/known-tenants';
import { tenantPolicyLookup } from './protocol/tenant-policy';
import { LocalSpentNonces, NonceStore, nonceKeyFromKek } from './protocol/nonce-store';
import { renewalInfoReply } from './protocol/renewal-info';
import {
  OrderResourceDeps,
  authorizationResource,
  certificateResource,
  challengeResource,
  finalizeResource,
  newOrderResource,
  orderResource,
  revokeCertResource,
} from './protocol/order-resources';
import { AcmeDatabase } from './stores/acme-database.store';
import { ChallengeValidators, VALIDATION_TIMEOUT_MS } from './validation/challenge-validators';
import { resolverTxtLookup } from './validation/dns01-validator';
import { TargetResolver } from './validation/target-resolver';
import { ValidationRunner } from './validation/validation-runner';

const ID = '([0-9a-fA-F-]{36})';

/** Starts the acme context: the ACME protocol for every tenant, behind the gateway's `/acme/` edge. */
export async function startAcme(runtime: ServiceRuntime): Promise<RunningService> {
  const { config, messaging, logger } = runtime;
  const kek = loadKek(runtime);
  const sealer = new EabKeySealer(kek);
  const dataSource = await openSchemaDataSource({
    url: runtime.databaseUrl,
    schema: ACME_SCHEMA,
    entities: [],
    migrations: acmeMigrations(sealer),
  });
  const database = new AcmeDatabase(dataSource, { onlyReplica: config.embedded });
  const { accounts, orders } = database;
  // Embedded mode is one process (the database is in it): nonces are checked in its memory, under a
  // key that dies with it. Replicas on a database share the spent ones there, under a key from the KEK.
  const nonces = config.embedded
    ? new NonceStore(randomBytes(32), new LocalSpentNonces(), config.acme.nonceLifetimeMs)
    : new NonceStore(nonceKeyFromKek(kek), database.spentNonces, config.acme.nonceLifetimeMs);
  const eabKeys = new EabKeys(database.eabKeys, sealer, (keyId, tenantId) =>
    logger.warn({ keyId, tenantId }, 'stored EAB key does not open (altered, moved or another KEK)'),
  );
  const issuance = messaging.rpcClient<IssuanceApi>();
  const limiter = new SharedAcmeRateLimiter(database.rateLimitWindows, (err) =>
    logger.warn({ err }, 'ACME rate limits not counted, database unavailable; answered 503'),
  );
  const resolver = new TargetResolver({
    overrides: config.acme.resolve,
    allowPrivateTargets: config.acme.allowPrivateTargets,
  });
  const validations = new ValidationRunner(
    orders,
    new ChallengeValidators(
      resolver,
      { http01Port: config.acme.http01Port, tlsAlpn01Port: config.acme.tlsAlpn01Port },
      resolverTxtLookup(config.acme.dnsResolvers, VALIDATION_TIMEOUT_MS),
    ),
    logger,
  );
  const onInternalError = (err: unknown) => logger.error({ err }, 'ACME request failed');
  const profiles = new AcmeProfiles(database.profiles, issuance);
  const deps: OrderResourceDeps = {
    orders,
    accounts,
    issuance,
    policy: tenantPolicyLookup(issuance),
    limiter,
    newOrdersPerAccount: config.acme.rateLimits.newOrdersPerAccount,
    validations,
    profiles,
    onInternalError,
  };
  const server = new AcmeServer({
    accounts,
    nonces,
    tenants: new KnownTenants(issuanceHasCa(issuance)),
    publicUrl: config.gatewayPublicUrl,
    limiter,
    limits: config.acme.rateLimits,
    onInternalError,
    renewalInfo: (tenantId, certId) => renewalInfoReply(issuance, tenantId, certId),
    profiles: (tenantId) => profiles.descriptions(tenantId),
    resources: [
      [/^\/new-account$/, newAccountResource(accounts, eabKeys)],
      [new RegExp(`^/account/${ID}$`), accountResource(accounts)],
      [new RegExp(`^/account/${ID}/orders$`), accountOrdersResource(orders)],
      [/^\/key-change$/, keyChangeResource(accounts)],
      [/^\/new-order$/, newOrderResource(deps)],
      [new RegExp(`^/order/${ID}$`), orderResource(deps)],
      [new RegExp(`^/order/${ID}/finalize$`), finalizeResource(deps)],
      [new RegExp(`^/authz/${ID}$`), authorizationResource(deps)],
      [new RegExp(`^/challenge/${ID}$`), challengeResource(deps)],
      [new RegExp(`^/cert/${ID}$`), certificateResource(deps)],
      [/^\/revoke-cert$/, revokeCertResource(deps)],
    ],
  });
  let app;
  try {
    app = await NestFactory.createMicroservice(AcmeModule.register({ server, eabKeys, profiles }), {
      ...messaging.serverOptions('acme'),
      logger: new NestPinoLogger(logger),
    });
    app.useGlobalInterceptors(new RpcTraceInterceptor('acme'), new RpcReplyInterceptor(messaging.blobs));
    await app.listen();
  } catch (error) {
    await app?.close();
    await issuance.close();
    await dataSource.destroy();
    throw error;
  }
  const started = app;
  // Storage stays bounded: expired nonces, orders that expired unfinished, past rate-limit windows.
  const housekeeping = new AcmeHousekeeping(nonces, orders, limiter, logger);
  housekeeping.start();
  return {
    name: 'acme',
    ready: () => database.ready(),
    close: once(async () => {
      housekeeping.stop();
      await started.close();
      await validations.idle();
      await issuance.close();
      await dataSource.destroy();
    }),
  };
}

/**
 * The acme context's KEK (in embedded mode, its own file): EAB keys are sealed under it, and
 * replicas derive their shared nonce key from it.
 */
function loadKek({ config }: ServiceRuntime): Uint8Array {
  try {
    return loadOrCreateLocalKek({
      kekBase64: config.caKek,
      dataDir: join(config.dataDir, 'acme'),
      embedded: config.embedded,
    });
  } catch (error) {
    const problem = error instanceof Error ? error.message.replace(/^CA_KEK:?\s*/, '') : 'is not usable';
    throw new ConfigError('CA_KEK', problem);
  }
}
