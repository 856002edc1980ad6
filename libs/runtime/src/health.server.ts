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
): Promise<Server> {
  const server = createServer((req, res) => {
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
