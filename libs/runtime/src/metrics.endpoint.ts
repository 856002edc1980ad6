import { IncomingMessage, ServerResponse } from 'node:http';
import { metricsExposition } from '@ca/observability';

export const METRICS_PATH = '/metrics';

/**
 * `GET /metrics`: the process's Prometheus metrics in the text exposition format. Under
 * `npm start` every service shares the process, so each port that serves it shows all of them.
 */
export function serveMetrics(_req: IncomingMessage, res: ServerResponse): void {
  metricsExposition().then(
    ({ contentType, body }) => {
      res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' });
      res.end(body);
    },
    () => {
      res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
      res.end('metrics unavailable\n');
    },
  );
}

/** Express/Connect middleware form: answers GET and HEAD of /metrics, passes anything else on. */
export function metricsMiddleware(req: IncomingMessage, res: ServerResponse, next: () => void): void {
  const path = (req.url ?? '').split('?')[0];
  if (path !== METRICS_PATH || (req.method !== 'GET' && req.method !== 'HEAD')) return next();
  serveMetrics(req, res);
}
