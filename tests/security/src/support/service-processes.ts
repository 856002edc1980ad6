import { webcrypto } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { generateKeyPair } from 'jose';
import {
  ChildProgram,
  adminToken,
  serviceEnvironment,
  serviceProgram,
  startUntilReady,
} from '@ca/faults/testing';
import { SecuredNatsServer, ServiceName, passwordVariable } from './secured-nats-server';
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
        [passwordVariable(service)]: nats.passwords[service],
      };
      system.programs.set(service, serviceProgram(service, service, { appRoot: APP_ROOT, env, logDir }));
    }
    try {
      // issuance owns the stream and the object store (deploy/nats/nats-server.conf): it goes first.
      await system.startService('issuance');
      await Promise.all(
        (['revocation', 'ocsp-responder', 'acme', 'webhooks', 'gateway'] as const).map((service) =>
          system.startService(service),
        ),
      );
    } catch (error) {
      await system.stop();
      throw error;
    }
    return system;
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
  token(tenantId: string): Promise<string> {
    return adminToken(this.signingKey, tenantId, 'security-suite');
  }

  async stop(): Promise<void> {
    await Promise.all([...this.programs.values()].map((program) => program.stop('SIGTERM')));
    this.removeDataDir();
  }
}
