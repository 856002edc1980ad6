import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChildProgram, waitFor } from './child-process';
import { freePorts, listening } from '@ca/test-support';

const NATS_SERVER = process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server';

/**
 * A NATS server with JetStream of the suite's own, on a free port, with its store in a temp dir
 * kept across restarts: the machine's shared NATS is never stopped.
 */
export class OwnNatsServer {
  private constructor(
    readonly port: number,
    private readonly dir: string,
    private readonly program: ChildProgram,
  ) {}

  static async start(logDir: string): Promise<OwnNatsServer> {
    const [port] = await freePorts(1);
    const dir = mkdtempSync(join(tmpdir(), 'ca-faults-nats-'));
    const program = new ChildProgram(
      'nats-server',
      NATS_SERVER,
      ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', dir],
      { logFile: join(logDir, 'nats-server.log') },
    );
    const server = new OwnNatsServer(port, dir, program);
    await server.up();
    return server;
  }

  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  /** Starts it (again) on the same port and store. */
  async up(): Promise<void> {
    this.program.start();
    await waitFor(() => listening(this.port), 10_000, 'nats-server listening');
  }

  /** A crash: SIGKILL, nothing flushed on purpose. */
  async kill(): Promise<void> {
    await this.program.stop('SIGKILL');
  }

  async remove(): Promise<void> {
    await this.program.stop('SIGKILL');
    rmSync(this.dir, { recursive: true, force: true });
  }
}
