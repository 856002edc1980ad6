/**
 * A closed-loop HTTP/1.1 load generator on raw TCP sockets (`node:net`), with the same
 * interface and counting as `runLoad` (http-load.ts) but a fraction of its cost per request:
 * each request's bytes are serialized once and reused, and an answer is read only as far as its
 * status line, Content-Length and body length. Node's `http.request` costs the loader about as
 * much CPU per request as a small server spends answering it, which on a 2-core machine left
 * every fast server (openssl ocsp, a bare Node server) bounded by the loader, not by itself.
 *
 * It understands what the OCSP peers send: a Content-Length, or a body up to the connection's
 * close (HTTP/1.0). A chunked answer counts as an error.
 */
import { connect, Socket } from 'node:net';
import { LoadRequest, LoadResult, LoadSpec } from './http-load';
import { LoadWindow } from './load-window';

const HEADER_END = Buffer.from('\r\n\r\n');

interface Outcome {
  /** HTTP status, or undefined after a transport error. */
  status?: number;
  error?: string;
}

/** One client connection: one request in flight at a time. */
class Connection {
  readonly socket: Socket;
  closed = false;
  private chunks: Buffer[] = [];
  private received = 0;
  private headerLength = -1;
  private status = 0;
  private contentLength: number | undefined;
  private waiter: ((outcome: Outcome) => void) | undefined;

  constructor(host: string, port: number) {
    this.socket = connect({ host, port, noDelay: true });
    this.socket.on('data', (data: Buffer) => this.onData(data));
    this.socket.on('end', () => this.onClose());
    this.socket.on('close', () => this.onClose());
    this.socket.on('error', (error: NodeJS.ErrnoException) =>
      this.settle({ error: error.code ?? error.message }),
    );
  }

  exchange(bytes: Buffer): Promise<Outcome> {
    this.chunks = [];
    this.received = 0;
    this.headerLength = -1;
    this.contentLength = undefined;
    return new Promise((resolve) => {
      this.waiter = resolve;
      this.socket.write(bytes);
    });
  }

  private onData(data: Buffer): void {
    if (!this.waiter) return;
    this.chunks.push(data);
    this.received += data.length;
    if (this.headerLength < 0) {
      const all = this.chunks.length === 1 ? data : Buffer.concat(this.chunks);
      this.chunks = [all];
      const end = all.indexOf(HEADER_END);
      if (end < 0) return;
      this.headerLength = end + HEADER_END.length;
      const head = all.toString('latin1', 0, end);
      this.status = Number(head.slice(9, 12));
      // The server closes after this answer (HTTP/1.0 without keep-alive, or Connection: close):
      // the next request goes on a new connection, as an HTTP client would do.
      const keepAlive = /\r\nconnection:\s*keep-alive/i.test(head);
      if (/\r\nconnection:\s*close/i.test(head) || (head.startsWith('HTTP/1.0') && !keepAlive))
        this.closed = true;
      const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
      if (length) this.contentLength = Number(length[1]);
      else if (/\r\ntransfer-encoding:/i.test(head)) return this.settle({ error: 'chunked answer' });
      else if (this.status === 304 || this.status === 204) this.contentLength = 0;
    }
    if (this.contentLength !== undefined && this.received >= this.headerLength + this.contentLength) {
      this.settle({ status: this.status });
    }
  }

  private onClose(): void {
    this.closed = true;
    // Without a Content-Length the body ends with the connection (RFC 9112 6.3).
    if (this.headerLength >= 0 && this.contentLength === undefined) this.settle({ status: this.status });
    else this.settle({ error: 'connection closed' });
  }

  private settle(outcome: Outcome): void {
    const waiter = this.waiter;
    this.waiter = undefined;
    if (outcome.error) this.closed = true;
    waiter?.(outcome);
  }
}

/** The request as bytes on the wire. */
function serialize(spec: LoadSpec, req: LoadRequest): Buffer {
  const lines = [`${req.method} ${req.path} HTTP/1.1`, `Host: ${spec.host}:${spec.port}`];
  for (const [name, value] of Object.entries(req.headers ?? {})) lines.push(`${name}: ${value}`);
  if (req.body) lines.push(`Content-Length: ${req.body.length}`);
  lines.push(spec.keepAlive ? 'Connection: keep-alive' : 'Connection: close');
  const head = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
  return req.body ? Buffer.concat([head, req.body]) : head;
}

export async function runSocketLoad(spec: LoadSpec): Promise<LoadResult> {
  const ok = spec.okStatus ?? ((status: number) => status === 200);
  const timeoutMs = spec.timeoutMs ?? 30_000;
  // Serialized once per distinct request (the same path and the same body object).
  const wire = new Map<string, WeakMap<object, Buffer>>();
  const NO_BODY = {};
  const bytesOf = (req: LoadRequest): Buffer => {
    const key = `${req.method} ${req.path}`;
    let byBody = wire.get(key);
    if (!byBody) wire.set(key, (byBody = new WeakMap()));
    const bodyKey = req.body ?? NO_BODY;
    let bytes = byBody.get(bodyKey);
    if (!bytes) byBody.set(bodyKey, (bytes = serialize(spec, req)));
    return bytes;
  };

  const window = new LoadWindow(spec);
  let sequence = 0;

  const worker = async () => {
    let connection: Connection | undefined;
    while (window.open) {
      const bytes = bytesOf(spec.next(sequence++));
      const wasOpen = connection !== undefined && !connection.closed;
      if (!wasOpen) connection = new Connection(spec.host, spec.port);
      const current = connection!;
      const sent = performance.now();
      const timer = setTimeout(() => current.socket.destroy(new Error('timeout')), timeoutMs);
      const outcome = await current.exchange(bytes);
      clearTimeout(timer);
      const error = outcome.error ?? (ok(outcome.status ?? 0) ? undefined : `HTTP ${outcome.status ?? 0}`);
      window.record(sent, performance.now(), wasOpen, error);
      if (!spec.keepAlive || current.closed || error) {
        // Fresh connection per request: close our side once the answer is in (the server closes too).
        current.socket.end();
        connection = undefined;
      }
      // After a transport error, back off a little instead of spinning on a refused port.
      if (outcome.error) await new Promise((r) => setTimeout(r, 5));
    }
    connection?.socket.destroy();
  };
  await Promise.all(Array.from({ length: spec.concurrency }, worker));
  return window.result();
}
