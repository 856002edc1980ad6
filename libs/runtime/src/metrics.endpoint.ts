import { timingSafeEqual } from 'node:crypto';
import { IncomingMessage, ServerResponse } from 'node:http';
import { metricsExposition } from '@ca/observability';

export const METRICS_PATH = '/metrics';

/** Labels that name a tenant; a sample carrying one never leaves through the public port. */
const TENANT_LABEL = /[{,]\s*tenant(?:_id|Id)?="/;
/** A tenant id (a UUID) in any label value: left out of the public port too, whatever the label. */
const UUID_VALUE = /="[^"]*[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

/** Who may read `/metrics`: when a token is set, only a request bearing it (RFC 6750 2.1). */
let requiredToken: Buffer | undefined;

/**
 * Sets the bearer token `/metrics` requires on every port of this process (`METRICS_TOKEN`);
 * undefined leaves it open. Under `npm start` every service shares the process, and this setting.
 */
export function configureMetricsAccess(options: { token?: string }): void {
  requiredToken = options.token ? Buffer.from(options.token, 'utf8') : undefined;
}

export interface MetricsAudience {
  /**
   * The public port: series carrying a tenant (a `tenant` label, or a tenant id in any label) are
   * left out; per-tenant series are on the admin port only.
   */
  tenantFree?: boolean;
}

/**
 * `GET /metrics`: the process's Prometheus metrics in the text exposition format. Under
 * `npm start` every service shares the process (and one registry), so each port that serves it
 * shows all of them; the public port without any tenant's series.
 */
export function serveMetrics(
  req: IncomingMessage,
  res: ServerResponse,
  audience: MetricsAudience = {},
): void {
  if (!authorized(req)) {
    res.writeHead(401, {
      'content-type': 'text/plain; charset=utf-8',
      'cache-control': 'no-store',
      'www-authenticate': 'Bearer realm="metrics"',
    });
    res.end('a bearer token is required\n');
    return;
  }
  metricsExposition().then(
    ({ contentType, body }) => {
      res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' });
      res.end(audience.tenantFree ? withoutTenants(body) : body);
    },
    () => {
      res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
      res.end('metrics unavailable\n');
    },
  );
}

/** The exposition without the samples that name a tenant (comment lines are kept). */
export function withoutTenants(exposition: string): string {
  return exposition
    .split('\n')
    .filter((line) => line.startsWith('#') || !(TENANT_LABEL.test(line) || UUID_VALUE.test(line)))
    .join('\n');
}

function authorized(req: IncomingMessage): boolean {
  if (!requiredToken) return true;
  const header = req.headers.authorization ?? '';
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) return false;
  const given = Buffer.from(match[1], 'utf8');
  return given.length === requiredToken.length && timingSafeEqual(given, requiredToken);
}

/** Express/Connect middleware form: answers GET and HEAD of /metrics, passes anything else on. */
export function metricsMiddleware(req: IncomingMessage, res: ServerResponse, next: () => void): void {
  if (!isMetricsRequest(req)) return next();
  serveMetrics(req, res);
}

/** The same for the public port: tenant-free. */
export function publicMetricsMiddleware(req: IncomingMessage, res: ServerResponse, next: () => void): void {
  if (!isMetricsRequest(req)) return next();
  serveMetrics(req, res, { tenantFree: true });
}

function isMetricsRequest(req: IncomingMessage): boolean {
  const path = (req.url ?? '').split('?')[0];
  return path === METRICS_PATH && (req.method === 'GET' || req.method === 'HEAD');
}
