import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { CaManagerConfig, loadConfig } from '@ca/config';
import { DEFAULT_STREAM, DEFAULT_SUBJECT_PREFIX, Messaging, openMessaging } from '@ca/messaging';
import { TestMessaging, createTestMessaging } from '@ca/messaging/testing';
import { Logger, createLogger } from '@ca/observability';
import { TestDatabase, createTestDatabase, freshEmbeddedDataDir } from '@ca/persistence/testing';
import { EmbeddedOptions, EmbeddedSystem, startEmbeddedSystem } from '@ca/embedded';
import { freePorts } from './http';
import { ShippedBus, shippedBusWanted, startShippedBus } from './shipped-bus';
import { ALL_SCOPES, TestTokens } from './tokens';

/** Silent by default; TEST_LOG_LEVEL=warn (say) shows the services' logs when a run needs diagnosing. */
export const LOG_LEVEL = process.env.TEST_LOG_LEVEL ?? 'silent';

/**
 * `embedded`: PGlite under a data dir of its own and the in-process transport (the defaults of
 * `npm start`). `postgres+nats`: a fresh database on the server of DATABASE_URL and the NATS of
 * NATS_URL, under stream and subject names of its own.
 */
export type Mode = 'embedded' | 'postgres+nats';

/** The modes a suite runs in: embedded always, postgres+nats when DATABASE_URL and NATS_URL are set. */
export function systemModes(suite: string): Mode[] {
  if (process.env.DATABASE_URL && process.env.NATS_URL)
    return process.env.TEST_REAL_ONLY === '1' ? ['postgres+nats'] : ['embedded', 'postgres+nats'];
  console.warn(`${suite}: DATABASE_URL/NATS_URL not set, postgres+nats mode skipped`);
  return ['embedded'];
}

export interface SystemUnderTestOptions {
  /** A logger per service; silent (or TEST_LOG_LEVEL) by default. */
  serviceLogger?: (service: string) => Logger;
  /** The scope of `tokens.sign` unless a test says otherwise; all three scopes by default. */
  tokenScope?: string;
  /** More environment for `loadConfig`. */
  env?: Record<string, string>;
  /** The webhooks service's options (its expiry scan's clock). */
  webhooks?: EmbeddedOptions['webhooks'];
  /**
   * On real Postgres + NATS with TEST_SHIPPED_BUS=1 (CI), run on the configuration we ship
   * instead of an open bus: deploy/nats/nats-server.conf with a NATS user per service, a Postgres
   * role per service (shipped-bus.ts). Any permission the server refused fails the suite at stop.
   */
  shippedBus?: boolean;
}

/**
 * The whole system as a user reaches it: the administrative API at `gatewayUrl`, the distribution
 * surface at `pkiUrl`, tokens it trusts. Each one has its own data (data dir or database) and its
 * own messaging names, so suites and modes never see each other's events or requests.
 */
export interface SystemUnderTest {
  readonly mode: Mode;
  readonly config: CaManagerConfig;
  /** The running system (replaced by `restart`). */
  readonly system: EmbeddedSystem;
  /** Where every service's schema lives. */
  readonly databaseUrl: string;
  readonly gatewayUrl: string;
  readonly pkiUrl: string;
  readonly tokens: TestTokens;
  readonly serviceLogger: (service: string) => Logger;
  readonly messagingOptions: TestMessaging['options'];
  /** On the shipped bus (shippedBus), the NATS server's store directory; else undefined. */
  readonly natsStoreDir?: string;
  /** Stops the system and starts it again on the same data, configuration and messaging names. */
  restart(): Promise<void>;
  /** Another connection to this system's messaging (a restarted service); closed by `stop`. */
  openMessaging(name: string): Promise<Messaging>;
  /** Stops everything and removes the data, the database and the stream. */
  stop(): Promise<void>;
}

export async function startSystemUnderTest(
  mode: Mode,
  options: SystemUnderTestOptions = {},
): Promise<SystemUnderTest> {
  // A port found free may be taken by another process (the other Jest worker) before the system
  // binds it: the failed start removed its data, so start again on other ports.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(mode, options);
    } catch (error) {
      if (attempt >= 3 || !String((error as Error | undefined)?.message).includes('EADDRINUSE')) throw error;
    }
  }
}

async function startOnce(mode: Mode, options: SystemUnderTestOptions): Promise<SystemUnderTest> {
  const tokens = await TestTokens.create(options.tokenScope ?? ALL_SCOPES);
  const serviceLogger =
    options.serviceLogger ?? ((service: string) => createLogger({ level: LOG_LEVEL, service }));
  const [gatewayPort, pkiPort] = await freePorts(2);
  const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
  const pkiUrl = `http://127.0.0.1:${pkiPort}`;
  const env: Record<string, string> = {
    HOST: '127.0.0.1',
    GATEWAY_PORT: String(gatewayPort),
    PKI_PORT: String(pkiPort),
    GATEWAY_PUBLIC_URL: gatewayUrl,
    PKI_PUBLIC_URL: pkiUrl,
    JWT_PUBLIC_KEY: tokens.publicKeyPem,
    LOG_LEVEL,
  };
  let database: TestDatabase | undefined;
  let shipped: ShippedBus | undefined;
  let dataDir: string;
  if (mode === 'postgres+nats') {
    database = await createTestDatabase('postgres');
    dataDir = database.dataDir;
    if (options.shippedBus && shippedBusWanted())
      shipped = await startShippedBus(database.url).catch(async (error: unknown) => {
        await database?.drop();
        throw error;
      });
    Object.assign(env, {
      DATA_DIR: dataDir,
      DATABASE_URL: database.url,
      NATS_URL: shipped?.natsUrl ?? process.env.NATS_URL!,
      CA_KEK: randomBytes(32).toString('base64'),
    });
  } else {
    dataDir = await freshEmbeddedDataDir('ca-system-');
    env.DATA_DIR = dataDir;
  }
  const config = loadConfig({ ...env, ...options.env });
  if (config.embedded !== (mode === 'embedded')) throw new Error(`the configuration is not ${mode}`);
  const testMessaging = createTestMessaging(mode === 'embedded' ? 'in-process' : 'nats', database?.url ?? '');
  // The shipped configuration names one stream and subjects without prefix: the server is the suite's own.
  const messagingOptions = shipped
    ? { streamName: DEFAULT_STREAM, subjectPrefix: DEFAULT_SUBJECT_PREFIX, rpcSubjectPrefix: '' }
    : testMessaging.options;
  const extraMessaging: Messaging[] = [];
  const start = () =>
    startEmbeddedSystem(config, {
      serviceLogger,
      messaging: messagingOptions,
      webhooks: options.webhooks,
      ...(shipped ? { perService: shipped.perService } : {}),
    });

  const removeData = async () => {
    if (shipped) await shipped.stop();
    else await testMessaging.cleanup();
    if (database) await database.drop();
    else rmSync(dataDir, { recursive: true, force: true });
  };
  let system: EmbeddedSystem;
  try {
    system = await start();
  } catch (error) {
    await removeData();
    throw error;
  }

  return {
    mode,
    config,
    get system() {
      return system;
    },
    get databaseUrl() {
      return system.databaseUrl;
    },
    gatewayUrl,
    pkiUrl,
    tokens,
    serviceLogger,
    messagingOptions,
    natsStoreDir: shipped?.storeDir,
    async restart() {
      await system.stop();
      system = await start();
    },
    async openMessaging(name: string) {
      const messaging = await openMessaging({
        natsUrl: config.natsUrl,
        databaseUrl: system.databaseUrl,
        name,
        ...messagingOptions,
        // On the shipped bus only the services' users exist: a helper connects as the gateway.
        ...(shipped ? shipped.perService.messaging('gateway') : {}),
      });
      extraMessaging.push(messaging);
      return messaging;
    },
    async stop() {
      await system.stop();
      for (const messaging of extraMessaging.splice(0)) await messaging.close();
      const refused = shipped?.violations() ?? [];
      await removeData();
      if (refused.length > 0)
        throw new Error(
          `the shipped NATS configuration refused what a service needs:\n${refused.join('\n')}`,
        );
    },
  };
}
