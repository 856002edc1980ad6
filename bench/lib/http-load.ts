/**
 * A closed-loop HTTP load generator on Node's `http`: `concurrency` workers, each sending its next
 * request as soon as the previous answer has been read completely, for a fixed time. Either one
 * keep-alive Agent (at most `concurrency` sockets, reused) or `agent: false` (a fresh TCP
 * connection, `Connection: close`, per request).
 */
import { Agent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { createServer, AddressInfo } from 'node:net';
import { LoadWindow } from './load-window';

export interface LoadRequest {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: Buffer;
}

export interface LoadSpec {
  host: string;
  port: number;
  /** The i-th request to send (called round-robin over a sample). */
  next: (i: number) => LoadRequest;
  concurrency: number;
  durationMs: number;
  /** Answers completed in this first stretch are not counted (connections, JIT, caches). */
  warmupMs: number;
  keepAlive: boolean;
  /** Statuses that count as success. */
  okStatus?: (status: number) => boolean;
  timeoutMs?: number;
  /** HTTPS, trusting this CA certificate (PEM) only; a kept-alive connection keeps its TLS session. */
  tls?: { ca: string };
}

export interface LoadResult {
  /** Successful answers in the measured window. */
  ok: number;
  /** Successful answers of the whole run, warm-up and the answers completed after the end included. */
  okTotal: number;
  /** Non-success statuses and transport errors in the measured window. */
  errors: number;
  errorKinds: Record<string, number>;
  perSecond: number;
  p50: number;
  p99: number;
  /** Of the requests in the window, the share sent on an already open connection. */
  reusedShare: number;
}

export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const keptAlive = { keepAlive: true, maxSockets: spec.concurrency, maxFreeSockets: spec.concurrency };
  const agent = spec.keepAlive
    ? spec.tls
      ? new HttpsAgent({ ...keptAlive, ca: spec.tls.ca })
      : new Agent(keptAlive)
    : false;
  const send = spec.tls ? httpsRequest : httpRequest;
  const ok = spec.okStatus ?? ((status: number) => status === 200);
  const window = new LoadWindow(spec);
  let sequence = 0;

  const one = (): Promise<void> =>
    new Promise((resolve) => {
      const req = spec.next(sequence++);
      const sent = performance.now();
      const headers: Record<string, string | number> = { ...req.headers };
      if (req.body) headers['Content-Length'] = req.body.length;
      const outgoing = send(
        {
          ...(spec.tls && !agent ? { ca: spec.tls.ca } : {}),
          host: spec.host,
          port: spec.port,
          method: req.method,
          path: req.path,
          headers,
          agent,
          timeout: spec.timeoutMs ?? 30_000,
        },
        (res) => {
          res.on('data', () => undefined);
          res.on('error', () => finish(`response error`));
          res.on('end', () => finish(ok(res.statusCode ?? 0) ? undefined : `HTTP ${res.statusCode}`));
        },
      );
      let finished = false;
      const finish = (error: string | undefined) => {
        if (finished) return;
        finished = true;
        window.record(sent, performance.now(), outgoing.reusedSocket, error);
        // After a transport error, back off a little instead of spinning on a refused port.
        if (error && !error.startsWith('HTTP')) setTimeout(resolve, 5);
        else resolve();
      };
      outgoing.on('timeout', () => outgoing.destroy(new Error('timeout')));
      outgoing.on('error', (err: NodeJS.ErrnoException) => finish(err.code ?? err.message));
      outgoing.end(req.body);
    });

  const worker = async () => {
    while (window.open) await one();
  };
  await Promise.all(Array.from({ length: spec.concurrency }, worker));
  if (agent) agent.destroy();
  return window.result();
}

/** A TCP port that was free a moment ago on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export interface HttpAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** One request, the whole answer buffered. */
export function httpCall(
  url: string,
  options: {
    method?: string;
    headers?: Record<string, string>;
    body?: Buffer | string;
    timeoutMs?: number;
  } = {},
): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const body = typeof options.body === 'string' ? Buffer.from(options.body) : options.body;
    const headers: Record<string, string | number> = { ...options.headers };
    if (body) headers['Content-Length'] = body.length;
    const req = httpRequest(
      url,
      { method: options.method ?? 'GET', headers, agent: false, timeout: options.timeoutMs ?? 60_000 },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
      },
    );
    req.on('timeout', () => req.destroy(new Error(`timeout: ${url}`)));
    req.on('error', reject);
    req.end(body);
  });
}

/** Polls `url` every `intervalMs` until it answers 200; resolves with the time it took. */
export async function waitFor200(url: string, timeoutMs: number, intervalMs = 25): Promise<number> {
  const start = performance.now();
  for (;;) {
    const answer = await httpCall(url, { timeoutMs: 2_000 }).catch(() => undefined);
    if (answer?.status === 200) return performance.now() - start;
    if (performance.now() - start > timeoutMs)
      throw new Error(`${url} did not answer 200 within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
