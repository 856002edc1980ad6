import { randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { IncomingMessage, Server, ServerResponse, createServer } from 'node:http';
import { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';
import {
  OPERATOR_ENDPOINT_FILE,
  OPERATOR_ENDPOINT_PATH,
  OperatorCommand,
  OperatorEndpointInfo,
  OperatorFrame,
  OpsOutput,
  UsageError,
} from './operator-protocol';

const MAX_REQUEST_BYTES = 16 * 1024;

interface EndpointLogger {
  error(object: object, message: string): void;
}

export interface OperatorEndpointOptions {
  dataDir: string;
  logger: EndpointLogger;
  /** Runs every command line no group claims (the gateway's tenant, audit, expiring and ca commands). */
  run: OperatorCommand;
  /**
   * Command groups another context of this process answers, by first word: `custody` is run by
   * issuance, which owns the CA keys and their KEK (the gateway never touches them).
   */
  commandGroups?: Record<string, OperatorCommand>;
}

export interface OperatorEndpoint {
  url: string;
  close(): Promise<void>;
}

/**
 * Embedded mode's way in for `npm run ops` (docs/api.md#operator-commands): the PGlite files belong to the
 * running process, so the CLI cannot open them. This process listens on a random loopback port
 * and writes the URL and a random secret to DATA_DIR/ops.json, readable by its owner only. The CLI
 * sends its arguments; the commands run here and their output streams back as JSON lines ending
 * with the exit code.
 */
export async function listenForOperatorCommands(options: OperatorEndpointOptions): Promise<OperatorEndpoint> {
  const secret = randomBytes(32).toString('base64url');
  const route = routeTo(options.run, options.commandGroups ?? {});
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => void handle(req, res, secret, route, options.logger));
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const file = join(options.dataDir, OPERATOR_ENDPOINT_FILE);
  writeOwnerOnly(file, JSON.stringify({ url, secret, pid: process.pid } satisfies OperatorEndpointInfo));
  return {
    url,
    close: async () => {
      removeIfOurs(file, secret);
      await closeServer(server, sockets);
    },
  };
}

/** The group named by the first word, else the default commands. */
function routeTo(run: OperatorCommand, groups: Record<string, OperatorCommand>): OperatorCommand {
  return (argv, io) => {
    const group = Object.hasOwn(groups, argv[0] ?? '') ? groups[argv[0]] : undefined;
    return group ? group(argv.slice(1), io) : run(argv, io);
  };
}

async function handle(
  req: IncomingMessage,
  res: ServerResponse,
  secret: string,
  route: OperatorCommand,
  logger: EndpointLogger,
): Promise<void> {
  const plain = (status: number, text: string) => {
    res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
    res.end(`${text}\n`);
  };
  if (req.method !== 'POST' || req.url !== OPERATOR_ENDPOINT_PATH) return plain(404, 'not found');
  if (!sameSecret(req.headers.authorization, `Bearer ${secret}`)) return plain(401, 'unauthorized');
  let argv: string[];
  try {
    const body = JSON.parse(await readBody(req)) as { argv?: unknown };
    if (!Array.isArray(body.argv) || !body.argv.every((a) => typeof a === 'string')) throw new Error();
    argv = body.argv;
  } catch {
    return plain(400, 'expected {"argv": [strings]}');
  }
  res.writeHead(200, { 'content-type': 'application/x-ndjson', 'cache-control': 'no-store' });
  const send = (frame: OperatorFrame) => writeLine(res, `${JSON.stringify(frame)}\n`);
  let exit: number;
  try {
    const io: OpsOutput = { out: (line) => send({ out: line }), err: (line) => send({ err: line }) };
    exit = await route(argv, io);
  } catch (error) {
    if (res.destroyed) return;
    if (error instanceof UsageError) {
      await send({ err: `ops: ${error.message}` });
      exit = 2;
    } else {
      logger.error({ err: error }, 'operator command failed');
      await send({
        err: `ops: the command failed: ${error instanceof Error ? error.message : String(error)}`,
      });
      exit = 1;
    }
  }
  res.end(`${JSON.stringify({ exit } satisfies OperatorFrame)}\n`);
}

/** Writes with backpressure; throws once the client has gone, which stops a long export. */
async function writeLine(res: ServerResponse, line: string): Promise<void> {
  if (res.destroyed) throw new Error('the operator client went away');
  if (res.write(line)) return;
  await new Promise<void>((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_REQUEST_BYTES) {
        reject(new Error('request too large'));
        req.destroy();
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function sameSecret(given: string | undefined, expected: string): boolean {
  const a = Buffer.from(given ?? '');
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

function writeOwnerOnly(path: string, content: string): void {
  mkdirSync(join(path, '..'), { recursive: true, mode: 0o700 });
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, content, { mode: 0o600 });
  renameSync(temp, path);
}

/** A newer process on the same DATA_DIR may have replaced the file: leave that one alone. */
function removeIfOurs(path: string, secret: string): void {
  try {
    const info = JSON.parse(readFileSync(path, 'utf8')) as Partial<OperatorEndpointInfo>;
    if (info.secret === secret) rmSync(path, { force: true });
  } catch {
    // already gone or unreadable: nothing of ours to remove
  }
}

function closeServer(server: Server, sockets: Set<Socket>): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    for (const socket of sockets) socket.destroy();
  });
}
