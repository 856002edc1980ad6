import { IncomingMessage, ServerResponse } from 'node:http';
import { NestExpressApplication } from '@nestjs/platform-express';
import { HttpContextInterceptor, Logger, expressRouteOf, httpObservability } from '@ca/observability';
import { METRICS_PATH, metricsMiddleware } from '@ca/runtime';
import { ACME_ROUTE, isAcmePath } from '../acme/acme-edge';
import { AUDIT_CODE_LOCAL } from '../audit/audit.middleware';
import { RequestWithId } from './request-id';

/**
 * Metrics and traces of the administrative API: a server span and the request metrics per call
 * (error counts by the Problem Details `code`), the request id and trace in the context of the
 * handler (so the RPC to issuance continues the trace), one access log line per call (info), and
 * `GET /metrics` without a token.
 * Mount right after the request id middleware.
 */
export function mountObservability(app: NestExpressApplication, accessLog: Logger): void {
  app.use(
    httpObservability({
      service: 'gateway',
      accessLog,
      requestIdOf: (req) => (req as unknown as RequestWithId).requestId,
      routeOf: (req) =>
        metricsPath(req) ? METRICS_PATH : isAcmePath(pathOf(req)) ? ACME_ROUTE : expressRouteOf(req),
      codeOf: (res) => {
        const code = (res as ServerResponse & { locals?: Record<string, unknown> }).locals?.[
          AUDIT_CODE_LOCAL
        ];
        return typeof code === 'string' ? code : undefined;
      },
    }),
  );
  app.use(metricsMiddleware);
  app.useGlobalInterceptors(new HttpContextInterceptor());
}

function metricsPath(req: IncomingMessage): boolean {
  return pathOf(req) === METRICS_PATH;
}

function pathOf(req: IncomingMessage): string {
  return (req.url ?? '').split('?')[0];
}
