import { randomBytes, randomUUID } from 'node:crypto';
import { CaManagerConfig, loadConfig } from '@ca/config';
import { CaError, ErrorCode, IssuanceApi, IssuancePattern } from '@ca/contracts';
import { InProcessEventBus, Messaging, RpcClient } from '@ca/messaging';
import { TestMessaging, TransportKind, createTestMessaging } from '@ca/messaging/testing';
import { Logger, createLogger } from '@ca/observability';
import { DatabaseKind, TestDatabase, createTestDatabase } from '@ca/persistence/testing';
import { RunningService, ServiceRuntime } from '@ca/runtime';
// The real services, started as their processes would be (the test is the composition root).
import { startIssuance } from '@ca/issuance';
import { startOcspResponder } from '@ca/ocsp-responder';
import { startRevocation } from '@ca/revocation';
import { eventually, freePorts } from './http';
import { LOG_LEVEL } from './system-under-test';

/** `ocsp-responder-2`: a second responder replica on the same schema (startSecondResponder). */
export type ServiceName = 'issuance' | 'revocation' | 'ocsp-responder' | 'ocsp-responder-2';

const STARTERS: Record<ServiceName, (runtime: ServiceRuntime) => Promise<RunningService>> = {
  issuance: startIssuance,
  revocation: startRevocation,
  'ocsp-responder': startOcspResponder,
  'ocsp-responder-2': startOcspResponder,
};

/**
 * Issuance, revocation and the responder started one by one, without the gateway, on one
 * database kind and transport, so a suite can stop and restart each of them. The suite talks to
 * issuance over RPC (`issuance`) and to the event stream (`client`) as the gateway would; the
 * public surface listens at `baseUrl`.
 */
export class ServiceCluster {
  private readonly running = new Map<ServiceName, { service: RunningService; messaging: Messaging }>();
  private readonly logger: Logger = createLogger({ level: LOG_LEVEL, service: 'test' });
  /** The test's own connection, in the gateway's place. */
  client!: Messaging;
  issuance!: RpcClient<IssuanceApi>;
  config!: CaManagerConfig;
  baseUrl!: string;
  /** The second responder's public surface, once startSecondResponder ran. */
  secondBaseUrl: string | undefined;
  private secondConfig: CaManagerConfig | undefined;
  database!: TestDatabase;
  private testMessaging!: TestMessaging;
  /** In process, request/reply only reaches services on the same Messaging: one for all, as in embedded mode. */
  private shared: Messaging | undefined;

  /** Starts issuance, revocation and the responder (back ends first, as the embedded system does). */
  static async start(databaseKind: DatabaseKind, transport: TransportKind): Promise<ServiceCluster> {
    const cluster = new ServiceCluster();
    await cluster.open(databaseKind, transport);
    return cluster;
  }

  private async open(databaseKind: DatabaseKind, transport: TransportKind): Promise<void> {
    this.database = await createTestDatabase(databaseKind);
    this.testMessaging = createTestMessaging(transport, this.database.url);
    if (transport === 'in-process') {
      this.shared = await this.testMessaging.open('ca-manager');
      // The in-process bus's pg Pool has no 'error' listener (reported): the forced DROP DATABASE
      // at teardown can hit one of its connections while it is still closing and crash the run.
      if (this.shared.events instanceof InProcessEventBus)
        this.shared.events.pool.on('error', () => undefined);
    }
    this.client = await this.connection('test');
    this.issuance = this.client.rpcClient<IssuanceApi>();
    const [port] = await freePorts(1);
    this.baseUrl = `http://127.0.0.1:${port}`;
    const env: Record<string, string> = {
      HOST: '127.0.0.1',
      PKI_PORT: String(port),
      PKI_PUBLIC_URL: this.baseUrl,
      DATA_DIR: this.database.dataDir,
      LOG_LEVEL,
    };
    if (databaseKind === 'postgres')
      Object.assign(env, { DATABASE_URL: this.database.url, CA_KEK: randomBytes(32).toString('base64') });
    if (transport === 'nats') env.NATS_URL = process.env.NATS_URL!;
    this.config = loadConfig(env);
    for (const name of ['issuance', 'revocation', 'ocsp-responder'] as const) await this.start(name);
  }

  /**
   * Another responder on the same schema and its own port, as a second replica would run (its own
   * connections, caches and status-change listener). Only on Postgres: the embedded database is
   * one process's alone.
   */
  async startSecondResponder(): Promise<string> {
    const [port] = await freePorts(1);
    this.secondBaseUrl = `http://127.0.0.1:${port}`;
    this.secondConfig = { ...this.config, pkiPort: port };
    await this.start('ocsp-responder-2');
    return this.secondBaseUrl;
  }

  async start(name: ServiceName): Promise<void> {
    const messaging = await this.connection(name);
    const service = await STARTERS[name]({
      config: name === 'ocsp-responder-2' ? this.secondConfig! : this.config,
      databaseUrl: this.database.url,
      messaging,
      logger: this.logger.child({ service: name }),
    });
    this.running.set(name, { service, messaging });
    if (name === 'issuance') await this.untilIssuanceAnswers();
  }

  async stop(name: ServiceName): Promise<void> {
    const entry = this.running.get(name);
    if (!entry) return;
    this.running.delete(name);
    await entry.service.close();
    if (entry.messaging !== this.shared) await entry.messaging.close();
  }

  /** Stops every service, closes the connections and drops the database and messaging names. */
  async close(): Promise<void> {
    for (const name of ['ocsp-responder-2', 'ocsp-responder', 'revocation', 'issuance'] as const)
      await this.stop(name);
    await this.issuance?.close();
    if (this.client && this.client !== this.shared) await this.client.close();
    await this.shared?.close();
    await this.testMessaging?.cleanup();
    await this.database?.drop();
  }

  private connection(name: string): Promise<Messaging> {
    return this.shared ? Promise.resolve(this.shared) : this.testMessaging.open(name);
  }

  /**
   * On NATS, start-up resolves before the server has seen issuance's subscriptions, so a request
   * sent at once may find no responders (reported): wait until issuance answers at all.
   */
  private async untilIssuanceAnswers(): Promise<void> {
    await eventually(
      async () => {
        const outcome = await this.issuance
          .send(IssuancePattern.GetCertificate, { tenantId: randomUUID(), certificateId: randomUUID() })
          .then(
            () => 'answered',
            (error: unknown) => (error instanceof CaError ? error.code : 'failed'),
          );
        return outcome === ErrorCode.ServiceUnavailable ? undefined : outcome;
      },
      10_000,
      'issuance answering requests',
    );
  }
}
