import { ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { connect } from 'node:net';
import { join } from 'node:path';
import { eventually, freePorts } from './http';
import { programPath, stopChild } from './programs';

/** An nginx started by a test: its HTTPS port, its error log, and a way to stop it. */
export interface TestNginx {
  readonly port: number;
  errorLog(): string;
  stop(): Promise<void>;
}

/**
 * Starts nginx in the foreground with everything under `dir` (prefix, pid, logs, temp paths), so it
 * needs no root and leaves nothing behind. `server` is the body of one `server` block; it listens
 * on a free loopback port with TLS.
 */
export async function startNginx(dir: string, server: string): Promise<TestNginx> {
  const [port] = await freePorts(1);
  mkdirSync(join(dir, 'logs'), { recursive: true });
  const errorLog = join(dir, 'logs', 'error.log');
  const conf = join(dir, 'nginx.conf');
  writeFileSync(
    conf,
    `worker_processes 1;
error_log ${errorLog} info;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path ${dir}/client_body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  server {
    listen 127.0.0.1:${port} ssl;
    server_name localhost;
${server}
  }
}
`,
  );
  const child: ChildProcess = spawn(
    programPath('nginx') ?? 'nginx',
    ['-p', dir, '-c', conf, '-g', `daemon off; pid ${join(dir, 'nginx.pid')};`],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const readLog = () => {
    try {
      return readFileSync(errorLog, 'utf8');
    } catch {
      return '';
    }
  };
  try {
    await eventually(
      async () => {
        if (child.exitCode !== null) throw new Error(`nginx exited: ${stderr}${readLog()}`);
        return (await canConnect(port)) ? true : undefined;
      },
      10_000,
      'nginx listening',
    );
  } catch (error) {
    await stopChild(child);
    throw error;
  }
  return { port, errorLog: readLog, stop: () => stopChild(child, 'SIGQUIT') };
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * GET https://localhost:<port>/ with a client certificate, trusting only `caPem` (the server
 * certificate is checked against the name localhost). Resolves with the status nginx answers.
 */
export function httpsGet(
  port: number,
  client: { caPem: string; certificatePem?: string; privateKeyPem?: string },
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        servername: 'localhost',
        port,
        path: '/',
        ca: client.caPem,
        cert: client.certificatePem,
        key: client.privateKeyPem,
        agent: false,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
        res.once('end', () => resolve({ status: res.statusCode!, body }));
      },
    );
    req.setTimeout(10_000, () => req.destroy(new Error('timed out')));
    req.once('error', reject);
    req.end();
  });
}
