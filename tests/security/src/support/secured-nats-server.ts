import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ConnectionOptions, nkeyAuthenticator } from 'nats';
import {
  NatsServiceKey,
  makeNatsServiceKeys,
  natsNkeyPublicVariable,
  natsNkeySeedVariables,
} from '@ca/config';
import { ChildProgram, waitFor } from '@ca/faults/testing';
import { freePorts, listening } from '@ca/test-support';
import { NATS_SERVER } from './real-services';
import { TlsFiles } from './tls-files';

export const SERVICES = ['gateway', 'issuance', 'revocation', 'ocsp-responder', 'acme', 'webhooks'] as const;
export type ServiceName = (typeof SERVICES)[number];

export const NATS_CONFIG = resolve(__dirname, '../../../../deploy/nats/nats-server.conf');
/** The same users and rights, each signing in with its NKey instead of a password. */
export const NATS_NKEYS_CONFIG = resolve(__dirname, '../../../../deploy/nats/nats-server-nkeys.conf');

/** How the services sign in: a password each (nats-server.conf) or an NKey each (nats-server-nkeys.conf). */
export type NatsAuth = 'password' | 'nkey';

/** `NATS_PASSWORD_<APP>`, as the services and the server configuration name it. */
export const passwordVariable = (service: ServiceName) =>
  `NATS_PASSWORD_${service.toUpperCase().replace(/-/g, '_')}`;

/**
 * nats-server run exactly as production runs it, `-c deploy/nats/nats-server.conf -a -p -sd`
 * (or nats-server-nkeys.conf), on a free port with a store of its own and fresh passwords (or
 * NKeys); with TLS when given certificates.
 */
export class SecuredNatsServer {
  private constructor(
    readonly port: number,
    readonly auth: NatsAuth,
    readonly passwords: Record<ServiceName, string>,
    readonly keys: Record<ServiceName, NatsServiceKey>,
    readonly tls: TlsFiles | undefined,
    private readonly dir: string,
    private readonly logFile: string,
    private readonly program: ChildProgram,
  ) {}

  static async start(
    logDir: string,
    tls?: TlsFiles,
    auth: NatsAuth = 'password',
  ): Promise<SecuredNatsServer> {
    const [port] = await freePorts(1);
    const dir = mkdtempSync(join(tmpdir(), 'ca-security-nats-'));
    const passwords = Object.fromEntries(
      SERVICES.map((service) => [service, `p${randomBytes(18).toString('hex')}`]),
    ) as Record<ServiceName, string>;
    const keys = Object.fromEntries(makeNatsServiceKeys(SERVICES).map((key) => [key.app, key])) as Record<
      ServiceName,
      NatsServiceKey
    >;
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH };
    for (const service of SERVICES) {
      if (auth === 'password') env[passwordVariable(service)] = passwords[service];
      else env[natsNkeyPublicVariable(service)] = keys[service].publicKey;
    }
    const config = auth === 'password' ? NATS_CONFIG : NATS_NKEYS_CONFIG;
    const args = ['-c', config, '-a', '127.0.0.1', '-p', String(port), '-sd', dir];
    if (tls) args.push('--tls', '--tlscert', tls.certFile, '--tlskey', tls.keyFile);
    const logFile = join(logDir, `nats-server-${port}.log`);
    const program = new ChildProgram('nats-server', NATS_SERVER, args, { env, logFile });
    program.start();
    await waitFor(async () => program.running && listening(port), 10_000, 'nats-server listening').catch(
      (error: Error) => {
        throw new Error(`${error.message}: ${readFileSync(logFile, 'utf8').slice(-2000)}`);
      },
    );
    return new SecuredNatsServer(port, auth, passwords, keys, tls, dir, logFile, program);
  }

  /** `service`'s credentials for a raw NATS client. */
  credentials(service: ServiceName): Pick<ConnectionOptions, 'user' | 'pass' | 'authenticator'> {
    return this.auth === 'password'
      ? { user: service, pass: this.passwords[service] }
      : { authenticator: nkeyAuthenticator(new TextEncoder().encode(this.keys[service].seed)) };
  }

  /** `service`'s credentials for openMessaging, as loadNatsClientSettings reads them. */
  messagingCredentials(service: ServiceName): { user: string; pass: string } | { nkeySeed: string } {
    return this.auth === 'password'
      ? { user: service, pass: this.passwords[service] }
      : { nkeySeed: this.keys[service].seed };
  }

  /** How the server's log names `service`'s connection: `User "<name>"` or `Nkey "<public key>"`. */
  principal(service: ServiceName): string {
    return this.auth === 'password' ? `User "${service}"` : `Nkey "${this.keys[service].publicKey}"`;
  }

  /** The environment variable that gives the service process its identity. */
  serviceEnv(service: ServiceName): NodeJS.ProcessEnv {
    return this.auth === 'password'
      ? { [passwordVariable(service)]: this.passwords[service] }
      : { [natsNkeySeedVariables(service).seed]: this.keys[service].seed };
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
