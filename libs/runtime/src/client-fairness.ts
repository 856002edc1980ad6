import { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { HttpLimits } from '@ca/config';
import { TrustedProxies, clientKey } from './client-address';

/** Answers a request refused by the request-rate cap (429 with `Retry-After`, RFC 6585 4). */
export type TooManyRequests = (req: IncomingMessage, res: ServerResponse, retryAfterSeconds: number) => void;

/** Request-rate buckets kept at most; beyond, the oldest go (they refill to full anyway). */
const MAX_BUCKETS = 100_000;
const SWEEP_MS = 10_000;

interface Connection {
  /** Undefined for a trusted proxy's connection: its clients are told apart per request. */
  key: string | undefined;
  /** Requests of this connection in Node's HTTP server not yet answered. */
  busy: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

const gates = new WeakMap<Server, ClientGate>();
const addresses = new WeakMap<IncomingMessage, string>();

/**
 * The address of the client that sent `req`: the peer, or with `TRUSTED_PROXIES` the address
 * the trusted proxy forwarded (for per-address limits such as failed authentications).
 */
export function clientAddressOf(req: IncomingMessage): string {
  return addresses.get(req) ?? req.socket.remoteAddress ?? 'unknown';
}

/** The gate `applyHttpLimits` put on this server, for a front that answers requests itself. */
export function clientGateOf(server: Server): ClientGate | undefined {
  return gates.get(server);
}

/** Marks the gate's own 'connection' listener, which a front taking over connections must leave first. */
export const ACCEPT_GATE = Symbol('acceptGate');

/**
 * Fair shares of one HTTP server among its clients (docs/security.md#connection-floods): a client
 * (address, or forwarded address from a trusted proxy) holds at most `maxConnectionsPerClient`
 * connections, further ones are closed on accept; at `maxConnections`, a new connection
 * closes the connection idle the longest (no request in flight: kept alive between requests, or
 * still sending its headers), and only when none is idle is the new one closed; and a client
 * sends at most `requestsPerClientPerSecond` requests per second (a token bucket one second
 * deep), more get 429 with `Retry-After` before any handler runs.
 */
export class ClientGate {
  private readonly proxies: TrustedProxies;
  /** Open connections, the longest idle first (moved to the end at each answer). */
  private readonly connections = new Map<Socket, Connection>();
  private readonly perClient = new Map<string, number>();
  private readonly buckets = new Map<string, Bucket>();
  private sweeper: NodeJS.Timeout | undefined;

  constructor(
    private readonly limits: HttpLimits,
    private readonly tooManyRequests: TooManyRequests = plainTooManyRequests,
  ) {
    this.proxies = new TrustedProxies(limits.trustedProxies);
  }

  /** Puts the gate in front of the server's connections and requests; before `listen`. */
  install(server: Server): void {
    gates.set(server, this);
    const accept = (socket: Socket) => this.accept(socket);
    Object.assign(accept, { [ACCEPT_GATE]: true });
    server.prependListener('connection', accept);
    // Ahead of every 'request' listener, those added later included (the responder's router).
    const emit = server.emit.bind(server) as (event: string | symbol, ...args: unknown[]) => boolean;
    server.emit = ((event: string | symbol, ...args: unknown[]) =>
      event === 'request' && !this.admit(args[0] as IncomingMessage, args[1] as ServerResponse)
        ? true
        : emit(event, ...args)) as Server['emit'];
    server.once('listening', () => {
      this.sweeper = setInterval(() => this.sweepBuckets(), SWEEP_MS);
      this.sweeper.unref();
    });
    server.once('close', () => clearInterval(this.sweeper));
  }

  /**
   * For a front that answers a request from the raw bytes: whether it may (under the client's
   * request rate, and not from a trusted proxy, whose client only the headers name). If not, the
   * front hands the request to Node's server, where the gate looks at it again.
   */
  admitFast(socket: Socket): boolean {
    const connection = this.connections.get(socket);
    if (!connection?.key) return false;
    this.touch(socket, connection);
    return this.take(connection.key);
  }

  private accept(socket: Socket): void {
    const peer = socket.remoteAddress;
    const key = this.proxies.has(peer) ? undefined : clientKey(peer);
    if (key !== undefined && (this.perClient.get(key) ?? 0) >= this.limits.maxConnectionsPerClient) {
      socket.destroy();
      return;
    }
    // Only at the limit: below it, a flood that reconnects every connection it loses would
    // otherwise close one more for each it opens, for ever, and cut clients in the middle.
    if (this.connections.size >= this.limits.maxConnections) this.reclaimIdle();
    if (this.connections.size >= this.limits.maxConnections) {
      socket.destroy();
      return;
    }
    this.connections.set(socket, { key, busy: 0 });
    if (key !== undefined) this.perClient.set(key, (this.perClient.get(key) ?? 0) + 1);
    socket.once('close', () => this.forget(socket));
  }

  private admit(req: IncomingMessage, res: ServerResponse): boolean {
    const socket = req.socket;
    const connection = this.connections.get(socket);
    if (connection) {
      connection.busy++;
      res.once('close', () => {
        connection.busy--;
        if (this.connections.has(socket)) this.touch(socket, connection);
      });
    }
    const address = this.proxies.clientAddress(socket.remoteAddress, req.headers) ?? 'unknown';
    if (this.proxies.any) addresses.set(req, address);
    if (this.limits.requestsPerClientPerSecond === 0) return true;
    const key = connection?.key ?? clientKey(address);
    if (this.take(key)) return true;
    this.tooManyRequests(req, res, 1);
    return false;
  }

  /** One request of this client's bucket, refilled at the rate since its last request. */
  private take(key: string): boolean {
    const rate = this.limits.requestsPerClientPerSecond;
    if (rate === 0) return true;
    const now = performance.now();
    let bucket = this.buckets.get(key);
    if (!bucket) {
      if (this.buckets.size >= MAX_BUCKETS) this.buckets.delete(this.buckets.keys().next().value as string);
      bucket = { tokens: rate, at: now };
      this.buckets.set(key, bucket);
    }
    bucket.tokens = Math.min(rate, bucket.tokens + ((now - bucket.at) * rate) / 1000);
    bucket.at = now;
    if (bucket.tokens < 1) return false;
    bucket.tokens--;
    return true;
  }

  /** Closes the connection idle the longest, if any is idle. */
  private reclaimIdle(): void {
    for (const [socket, connection] of this.connections) {
      if (connection.busy > 0) continue;
      this.forget(socket);
      socket.destroy();
      return;
    }
  }

  private touch(socket: Socket, connection: Connection): void {
    this.connections.delete(socket);
    this.connections.set(socket, connection);
  }

  private forget(socket: Socket): void {
    const connection = this.connections.get(socket);
    if (!connection) return;
    this.connections.delete(socket);
    if (connection.key === undefined) return;
    const left = (this.perClient.get(connection.key) ?? 1) - 1;
    if (left > 0) this.perClient.set(connection.key, left);
    else this.perClient.delete(connection.key);
  }

  /** Buckets that refilled to full say nothing a new bucket would not: dropped. */
  private sweepBuckets(): void {
    const now = performance.now();
    const rate = this.limits.requestsPerClientPerSecond;
    for (const [key, bucket] of this.buckets)
      if (bucket.tokens + ((now - bucket.at) * rate) / 1000 >= rate) this.buckets.delete(key);
  }
}

function plainTooManyRequests(_req: IncomingMessage, res: ServerResponse, retryAfterSeconds: number): void {
  const body = JSON.stringify({
    type: 'about:blank',
    title: 'Too Many Requests',
    status: 429,
    detail: 'Too many requests from this client; retry after Retry-After seconds.',
  });
  res.writeHead(429, {
    'Retry-After': String(retryAfterSeconds),
    'Cache-Control': 'no-store',
    'Content-Type': 'application/problem+json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
  });
  res.end(body);
}
