import { Server } from 'node:http';
import { Socket } from 'node:net';
import { HttpLimits } from '@ca/config';
import { ClientGate, TooManyRequests } from './client-fairness';

/**
 * Bounds what idle or slow clients can hold on an HTTP server (both surfaces): the open
 * connections, each client's fair share of them and of requests (ClientGate), the time to send the headers (slowloris) and the whole request, and the idle time
 * of a kept-alive connection. Node checks the header and request timeouts every
 * `connectionsCheckingInterval` (30 s by default), brought down here to a fraction of the headers
 * timeout; and since those timeouts only watch a connection once a request has begun, one that
 * never sends a byte is cut here when the headers timeout has passed since accept. No cap on
 * requests per connection: the PKI port's OCSP fast front answers kept-alive requests itself and
 * could not honour one. Set before `listen`.
 */
export function applyHttpLimits(server: Server, limits: HttpLimits, tooManyRequests?: TooManyRequests): void {
  // Not Node's maxConnections, which refuses a new connection at the limit even when an idle
  // one could make room: the gate does the counting.
  new ClientGate(limits, tooManyRequests).install(server);
  server.headersTimeout = limits.headersTimeoutSeconds * 1000;
  server.requestTimeout = limits.requestTimeoutSeconds * 1000;
  server.keepAliveTimeout = limits.keepAliveTimeoutSeconds * 1000;
  // Read by Node when the server starts listening (not declared as a property by @types/node).
  (server as Server & { connectionsCheckingInterval?: number }).connectionsCheckingInterval = Math.min(
    1000,
    (limits.headersTimeoutSeconds * 1000) / 4,
  );
  const headersTimeoutMs = limits.headersTimeoutSeconds * 1000;
  server.on('connection', (socket: Socket) => {
    // Already read from: handed over by a front that had the bytes first (the responder's fast front).
    if (socket.bytesRead > 0) return;
    const cut = setTimeout(() => {
      if (socket.bytesRead === 0) socket.destroy();
    }, headersTimeoutMs);
    cut.unref();
    socket.once('close', () => clearTimeout(cut));
  });
}
