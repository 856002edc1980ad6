import { spawn } from 'node:child_process';
import { Agent, request } from 'node:http';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '../..');

/** One request over node:http from a chosen loopback source address (another client machine). */
export function statusFrom(
  localAddress: string,
  url: string,
  headers: Record<string, string>,
  agent?: Agent,
): Promise<{ status: number; retryAfter?: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers, localAddress, agent });
    req.on('error', (error: NodeJS.ErrnoException) => {
      // A kept-alive socket the server closed as idle just as this request went out (RFC 9112
      // 9.3.1): a client retries an idempotent request on a new connection, as Node's docs advise.
      if (req.reusedSocket && error.code === 'ECONNRESET')
        statusFrom(localAddress, url, headers, agent).then(resolve, reject);
      else reject(error);
    });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode!, retryAfter: res.headers['retry-after'] }));
    });
    req.end();
  });
}

export { type HeldSocket, holdSocket } from '@ca/system/testing';

/** `npm run ops -- audit verify` as an operator runs it (another process) against this database. */
export function auditVerify(
  dataDir: string,
  databaseUrl: string,
): Promise<{ code: number | null; stdout: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, DATABASE_URL: databaseUrl };
  delete env.NODE_OPTIONS;
  delete env.NATS_URL;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-r', '@swc-node/register', 'tools/ops.ts', 'audit', 'verify'], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout }));
  });
}
