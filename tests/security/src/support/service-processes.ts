import { webcrypto } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { generateKeyPair } from 'jose';
import {
  ChildProgram,
  adminToken,
  serviceEnvironment,
  serviceProgram,
  startUntilReady,
  waitFor,
} from '@ca/faults/testing';
import { SecuredNatsServer, ServiceName } from './secured-nats-server';
import { SchemaName, ServiceDatabase } from './service-database';

const APP_ROOT = resolve(__dirname, '../../../..');

const SCHEMA_OF: Record<ServiceName, SchemaName> = {
  gateway: 'gateway',
  issuance: 'issuance',
  revocation: 'revocation',
  'ocsp-responder': 'ocsp',
  acme: 'acme',
  webhooks: 'webhooks',
};

/**
 * The six services as `nx serve` runs them (`node -r @swc-node/register apps/<app>/src/main.ts`),
 * each with only its own secrets: its NATS password, its Postgres role's DATABASE_URL, and the CA
 * file that the NATS server's certificate chains to. Output goes to `<logDir>/<service>.log`.
 */
export class ServiceProcesses {
  private readonly programs = new Map<ServiceName, ChildProgram>();
  private readonly healthUrls = new Map<ServiceName, string>();
  private readonly envs = new Map<ServiceName, NodeJS.ProcessEnv>();
  private removeDataDir = () => undefined as void;

  private constructor(
    readonly gatewayUrl: string,
    readonly pkiUrl: string,
    private readonly logDir: string,
    private readonly signingKey: webcrypto.CryptoKey,
  ) {}

  static async start(
    nats: SecuredNatsServer,
    database: ServiceDatabase,
    logDir: string,
  ): Promise<ServiceProcesses> {
    const keys = await generateKeyPair('ES256');
    const dataDir = mkdtempSync(join(tmpdir(), 'ca-security-data-'));
    const layout = await serviceEnvironment({
      dataDir,
      jwtPublicKey: keys.publicKey,
      logLevel: process.env.SECURITY_LOG_LEVEL ?? 'warn',
    });
    const { gatewayUrl, pkiUrl, perService } = layout;
    const system = new ServiceProcesses(gatewayUrl, pkiUrl, logDir, keys.privateKey);
    system.removeDataDir = () => rmSync(dataDir, { recursive: true, force: true });
    const common: NodeJS.ProcessEnv = {
      ...layout.common,
      NATS_URL: nats.url,
      ...(nats.tls ? { NATS_TLS_CA_FILE: nats.tls.caFile } : {}),
    };
    for (const service of Object.keys(perService) as ServiceName[])
      system.healthUrls.set(service, layout.healthUrls[service]);
    for (const service of Object.keys(perService) as ServiceName[]) {
      const env: NodeJS.ProcessEnv = {
        ...common,
        ...perService[service],
        DATABASE_URL: database.urlFor(SCHEMA_OF[service]),
        ...nats.serviceEnv(service),
      };
      system.envs.set(service, env);
      system.programs.set(service, serviceProgram(service, service, { appRoot: APP_ROOT, env, logDir }));
    }
    try {
      // Reverse order, issuance (which creates the streams) last: the others must wait for it,
      // saying so at /health/ready, and never exit for it. A call then works end to end.
      const waiting = ['gateway', 'webhooks', 'acme', 'ocsp-responder', 'revocation'] as const;
      for (const service of waiting) system.programs.get(service)!.start();
      for (const service of waiting) system.waitedFor.set(service, await system.untilWaiting(service));
      const ready = [system.startService('issuance')];
      for (const service of waiting) ready.push(system.untilReady(service));
      await Promise.all(ready);
    } catch (error) {
      await system.stop();
      throw error;
    }
    return system;
  }

  /** What each service said at /health/ready while it waited for issuance (the streams). */
  readonly waitedFor = new Map<ServiceName, string>();

  /** Until the service answers 503 at /health/ready naming what it waits for; that name. */
  private async untilWaiting(service: ServiceName, timeoutMs = 120_000): Promise<string> {
    let waitingFor = '';
    const program = this.programs.get(service)!;
    await waitFor(
      async () => {
        if (!program.running) throw new Error(`${service} exited while waiting (log: ${this.logDir})`);
        const response = await fetch(this.healthUrls.get(service)!).catch(() => undefined);
        if (response?.status !== 503) return false;
        waitingFor = String(((await response.json()) as { waitingFor?: string }).waitingFor ?? '');
        return waitingFor !== '';
      },
      timeoutMs,
      `${service} waiting for the streams`,
    );
    return waitingFor;
  }

  private async untilReady(service: ServiceName, timeoutMs = 120_000): Promise<void> {
    const program = this.programs.get(service)!;
    await waitFor(
      async () => {
        if (!program.running) throw new Error(`${service} exited at start (log: ${this.logDir})`);
        return (await fetch(this.healthUrls.get(service)!).catch(() => undefined))?.status === 200;
      },
      timeoutMs,
      `${service} ready`,
    );
  }

  private startService(service: ServiceName, timeoutMs = 120_000): Promise<void> {
    return startUntilReady(
      this.programs.get(service)!,
      this.healthUrls.get(service)!,
      this.logDir,
      timeoutMs,
    );
  }

  /** An ES256 admin token of the tenant with every scope. */
  /**
   * One more replica of `service`, named `name`, with `change` applied to its environment: the log
   * it wrote once it exited, or undefined when it was still running after `timeoutMs` (then stopped).
   */
  async replicaExitLog(
    service: ServiceName,
    name: string,
    change: (env: NodeJS.ProcessEnv) => NodeJS.ProcessEnv,
    timeoutMs = 60_000,
  ): Promise<string | undefined> {
    const env = change({ ...this.envs.get(service)! });
    const program = serviceProgram(name, service, { appRoot: APP_ROOT, env, logDir: this.logDir });
    program.start();
    const deadline = Date.now() + timeoutMs;
    while (program.running && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    if (program.running) {
      await program.stop('SIGKILL');
      return undefined;
    }
    return readFileSync(join(this.logDir, `${name}.log`), 'utf8');
  }

  token(tenantId: string): Promise<string> {
    return adminToken(this.signingKey, tenantId, 'security-suite');
  }

  async stop(): Promise<void> {
    await Promise.all([...this.programs.values()].map((program) => program.stop('SIGTERM')));
    this.removeDataDir();
  }
}
