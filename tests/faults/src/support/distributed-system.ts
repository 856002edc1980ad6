import { webcrypto } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { generateKeyPair } from 'jose';
import { ChildProgram, ExitStatus } from './child-process';
import { adminToken, serviceProgram, startUntilReady } from './service-program';
import { ServiceName, serviceEnvironment } from './service-environment';

/**
 * Where the services' code is run from: this checkout, or FAULTS_APP_ROOT (for example a
 * `git archive` export of a commit with node_modules linked in, while the tree is being edited).
 */
const APP_ROOT = process.env.FAULTS_APP_ROOT ?? resolve(__dirname, '../../../..');

export type { ServiceName };
const SERVICES: ServiceName[] = ['issuance', 'revocation', 'ocsp-responder', 'gateway'];
/**
 * A second replica of a service: issuance and revocation get a health port of their own, the
 * responder a public port of its own (`pkiUrls[1]`) and the gateway an admin port of its own
 * (`gatewayUrls[1]`), as two replicas behind a load balancer.
 */
export type ReplicaName = 'issuance-2' | 'revocation-2' | 'ocsp-responder-2' | 'gateway-2' | 'webhooks-2';
type ReplicatedService = 'issuance' | 'revocation' | 'ocsp-responder' | 'gateway' | 'webhooks';
type ProgramName = ServiceName | ReplicaName;

export interface SystemOptions {
  /** Services that run a second replica beside the first, on the same database and NATS. */
  secondReplicas?: ReplicatedService[];
  /** OCSP_RESPONDER_WORKERS of the (first) responder: its processes behind its one port. */
  responderWorkers?: number;
  /**
   * Also runs the webhooks service (allowed to deliver to loopback), with these settings on top;
   * `secondReplicas: ['webhooks']` then adds its second replica.
   */
  webhooks?: NodeJS.ProcessEnv;
  /** How long each service may take to become ready (default 90 s; more on a loaded machine). */
  startTimeoutMs?: number;
}

/** Where a suite's own Postgres database and NATS server are. */
export interface Infrastructure {
  databaseUrl: string;
  natsUrl: string;
}

/**
 * The four services of distributed mode, each its own `node -r @swc-node/register
 * apps/<app>/src/main.ts` process (as `nx serve` runs them) on the suite's database and NATS.
 * Each service's output goes to `<logDir>/<service>.log`.
 */
export class DistributedSystem {
  private readonly programs = new Map<ProgramName, ChildProgram>();
  private readonly healthUrls = new Map<ProgramName, string>();
  /** The responders' public URLs: `pkiUrl` first, then a second replica's if started. */
  readonly pkiUrls: string[];
  /** The gateways' admin URLs: `gatewayUrl` first, then a second replica's if started. */
  readonly gatewayUrls: string[];

  private constructor(
    readonly gatewayUrl: string,
    readonly pkiUrl: string,
    readonly logDir: string,
    private readonly signingKey: webcrypto.CryptoKey,
  ) {
    this.pkiUrls = [pkiUrl];
    this.gatewayUrls = [gatewayUrl];
  }

  static async start(
    infrastructure: Infrastructure,
    logDir: string,
    options: SystemOptions = {},
  ): Promise<DistributedSystem> {
    const secondReplicas = options.secondReplicas ?? [];
    const keys = await generateKeyPair('ES256');
    const dataDir = mkdtempSync(join(tmpdir(), 'ca-faults-data-'));
    const layout = await serviceEnvironment({
      dataDir,
      jwtPublicKey: keys.publicKey,
      logLevel: process.env.FAULTS_LOG_LEVEL ?? 'warn',
      extraPorts: secondReplicas.length,
    });
    const { gatewayUrl, pkiUrl, perService, extraPorts: replicaHealth } = layout;
    const system = new DistributedSystem(gatewayUrl, pkiUrl, logDir, keys.privateKey);
    const common: NodeJS.ProcessEnv = {
      ...layout.common,
      DATABASE_URL: infrastructure.databaseUrl,
      NATS_URL: infrastructure.natsUrl,
      // The suites drive thousands of calls per tenant within a minute.
      RATE_LIMIT_PER_MINUTE: '10000000',
      DEFAULT_CERTIFICATE_LIMIT: '100000',
    };
    const services: ServiceName[] = options.webhooks ? [...SERVICES, 'webhooks'] : SERVICES;
    if (options.webhooks) Object.assign(perService.webhooks, options.webhooks);
    for (const service of services) system.healthUrls.set(service, layout.healthUrls[service]);
    if (options.responderWorkers)
      perService['ocsp-responder'].OCSP_RESPONDER_WORKERS = String(options.responderWorkers);
    for (const service of services) {
      system.programs.set(
        service,
        serviceProgram(service, service, {
          appRoot: APP_ROOT,
          env: { ...common, ...perService[service] },
          logDir,
        }),
      );
    }
    // A replica shares its service's settings (its CA_KEK too), with a health port of its own.
    secondReplicas.forEach((service, i) => {
      const name: ReplicaName = `${service}-2`;
      const port = String(replicaHealth[i]);
      const own =
        service === 'ocsp-responder'
          ? { PKI_PORT: port }
          : service === 'gateway'
            ? { GATEWAY_PORT: port }
            : { HEALTH_PORT: port };
      if (service === 'ocsp-responder') system.pkiUrls.push(`http://127.0.0.1:${port}`);
      if (service === 'gateway') system.gatewayUrls.push(`http://127.0.0.1:${port}`);
      system.healthUrls.set(name, `http://127.0.0.1:${port}/health/ready`);
      system.programs.set(
        name,
        serviceProgram(name, service, {
          appRoot: APP_ROOT,
          env: { ...common, ...perService[service], ...own },
          logDir,
        }),
      );
    });
    system.removeDataDir = () => rmSync(dataDir, { recursive: true, force: true });
    try {
      await Promise.all(
        [...system.programs.keys()].map((name) => system.startService(name, options.startTimeoutMs)),
      );
    } catch (error) {
      await system.stop();
      throw error;
    }
    return system;
  }

  private removeDataDir = () => undefined as void;

  /** Starts one service (again) and waits until its /health/ready answers 200. */
  startService(service: ProgramName, timeoutMs = 90_000): Promise<void> {
    return startUntilReady(
      this.programs.get(service)!,
      this.healthUrls.get(service)!,
      this.logDir,
      timeoutMs,
    );
  }

  /** SIGKILL: the service dies mid-work, as in a crash or an OOM kill. */
  async kill(service: ProgramName): Promise<void> {
    await this.programs.get(service)!.stop('SIGKILL');
  }

  /** SIGTERM: an orderly stop; resolves with how the process ended. */
  stopService(service: ProgramName): Promise<ExitStatus | undefined> {
    return this.programs.get(service)!.stop('SIGTERM');
  }

  /** The pid of a running service's process (the cluster primary when it runs workers). */
  pid(service: ProgramName): number | undefined {
    return this.programs.get(service)!.pid;
  }

  /** An ES256 admin token of the tenant with every scope. */
  token(tenantId: string): Promise<string> {
    return adminToken(this.signingKey, tenantId, 'fault-suite');
  }

  async stop(): Promise<void> {
    await Promise.all([...this.programs.values()].map((program) => program.stop('SIGTERM')));
    this.removeDataDir();
  }
}
