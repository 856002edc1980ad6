import { Server, createServer } from 'node:http';
import { ConfigError } from '@ca/config';
import { METRICS_PATH, serveMetrics } from './metrics.endpoint';

/**
 * `/health/live`, `/health/ready` and `/metrics` (Prometheus) for services without an HTTP
 * surface of their own (issuance, revocation) in distributed mode: probes and scrapes.
 */
export async function startHealthServer(
  host: string,
  port: number,
  ready: () => Promise<boolean>,
  /** What a service that is not ready yet waits for (`waitingFor`), in the 503's body. */
  detail: () => Record<string, unknown> = () => ({}),
  /** Every answer closes its connection (a server that hands its port over, see `startStartupServer`). */
  options: { closeEachConnection?: boolean } = {},
): Promise<Server> {
  const server = createServer((req, res) => {
    if (options.closeEachConnection) res.setHeader('connection', 'close');
    const reply = (status: number, body: object) => {
      res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      res.end(JSON.stringify(body));
    };
    if (req.url === '/health/live') return reply(200, { status: 'ok' });
    if (req.url === METRICS_PATH) return serveMetrics(req, res);
    if (req.url === '/health/ready') {
      ready().then(
        (ok) => reply(ok ? 200 : 503, ok ? { status: 'ok' } : { status: 'unavailable', ...detail() }),
        () => reply(503, { status: 'unavailable', ...detail() }),
      );
      return;
    }
    reply(404, { statusCode: 404, message: 'Not Found' });
  });
  await new Promise<void>((resolve, reject) =>
    server
      .once('error', (error: NodeJS.ErrnoException) =>
        // The one line a start-up failure prints names the setting to change.
        reject(
          error.code === 'EADDRINUSE'
            ? new ConfigError(
                'HEALTH_PORT',
                `port ${port} on ${host} is already in use; set HEALTH_PORT to a free port`,
              )
            : error,
        ),
      )
      .listen(port, host, resolve),
  );
  return server;
}

/** The stand-in on a service's own port while the service starts; `handOver` frees the port for it. */
export interface StartupServer {
  /** Stops answering and resolves once no connection is left, so the service can listen on the port. */
  handOver(): Promise<void>;
}

/**
 * `/health/ready` answering 503 (and what the service waits for) on the port of a service's own
 * HTTP surface (gateway, responder) until the service takes that port over. Every answer closes
 * its connection: a prober polling over one kept-alive connection faster than the keep-alive
 * time-out would otherwise keep this server from ever closing, so the service would never start
 * (and the prober would keep reading this 503 on that connection).
 */
export async function startStartupServer(
  host: string,
  port: number,
  detail: () => Record<string, unknown>,
): Promise<StartupServer> {
  const server = await startHealthServer(host, port, async () => false, detail, {
    closeEachConnection: true,
  });
  return {
    handOver: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
