import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ChildProgram, waitFor } from '@ca/faults/testing';
import { freePorts, listening } from '@ca/test-support';
import { NATS_SERVER } from './real-services';
import { TlsFiles } from './tls-files';

export const SERVICES = ['gateway', 'issuance', 'revocation', 'ocsp-responder', 'acme', 'webhooks'] as const;
export type ServiceName = (typeof SERVICES)[number];

export const NATS_CONFIG = resolve(__dirname, '../../../../deploy/nats/nats-server.conf');

/** `NATS_PASSWORD_<APP>`, as the services and the server configuration name it. */
export const passwordVariable = (service: ServiceName) =>
  `NATS_PASSWORD_${service.toUpperCase().replace(/-/g, '_')}`;

/**
 * nats-server run exactly as production runs it, `-c deploy/nats/nats-server.conf -a -p -sd`,
 * on a free port with a store of its own and fresh passwords; with TLS when given certificates.
 */
export class SecuredNatsServer {
  private constructor(
    readonly port: number,
    readonly passwords: Record<ServiceName, string>,
    readonly tls: TlsFiles | undefined,
    private readonly dir: string,
    private readonly logFile: string,
    private readonly program: ChildProgram,
  ) {}

  static async start(logDir: string, tls?: TlsFiles): Promise<SecuredNatsServer> {
    const [port] = await freePorts(1);
    const dir = mkdtempSync(join(tmpdir(), 'ca-security-nats-'));
    const passwords = Object.fromEntries(
      SERVICES.map((service) => [service, `p${randomBytes(18).toString('hex')}`]),
    ) as Record<ServiceName, string>;
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH };
    for (const service of SERVICES) env[passwordVariable(service)] = passwords[service];
    const args = ['-c', NATS_CONFIG, '-a', '127.0.0.1', '-p', String(port), '-sd', dir];
    if (tls) args.push('--tls', '--tlscert', tls.certFile, '--tlskey', tls.keyFile);
    const logFile = join(logDir, `nats-server-${port}.log`);
    const program = new ChildProgram('nats-server', NATS_SERVER, args, { env, logFile });
    program.start();
    await waitFor(async () => program.running && listening(port), 10_000, 'nats-server listening').catch(
      (error: Error) => {
        throw new Error(`${error.message}: ${readFileSync(logFile, 'utf8').slice(-2000)}`);
      },
    );
    return new SecuredNatsServer(port, passwords, tls, dir, logFile, program);
  }

  get url(): string {
    return `${this.tls ? 'tls' : 'nats'}://127.0.0.1:${this.port}`;
  }

  /** Permission violations the server logged, e.g. `Publish Violation - User "gateway", Subject "…"`. */
  violations(): string[] {
    return readFileSync(this.logFile, 'utf8')
      .split('\n')
      .filter((line) => /Violation/.test(line));
  }

  async remove(): Promise<void> {
    await this.program.stop('SIGTERM');
    rmSync(this.dir, { recursive: true, force: true });
  }
}
