import { IncomingMessage, ServerResponse } from 'node:http';
import { Counter, Histogram } from 'prom-client';
import { metricsRegistry } from './registry';

const registers = [metricsRegistry];

export const httpMetrics = {
  requestsTotal: new Counter({
    name: 'ca_http_requests_total',
    help: 'HTTP requests answered, by service, method, route template and status code.',
    labelNames: ['service', 'method', 'route', 'status'] as const,
    registers,
  }),
  duration: new Histogram({
    name: 'ca_http_request_duration_seconds',
    help: 'Time from request to the last byte of the answer, by service, method and route template.',
    labelNames: ['service', 'method', 'route'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers,
  }),
  errorsTotal: new Counter({
    name: 'ca_http_errors_total',
    help: 'HTTP answers with status 400 or above, by service, status and error code (Problem Details code).',
    labelNames: ['service', 'status', 'code'] as const,
    registers,
  }),
};

/** Routes are templates (`/v1/certificates/:certificateId`), never raw paths: bounded label values. */
export const UNMATCHED_ROUTE = 'unmatched';
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

export interface HttpObservation {
  service: string;
  method: string;
  route: string;
  status: number;
  seconds: number;
  /** The error code of a 4xx/5xx answer, when the service names one. */
  code?: string;
}

export function observeHttpRequest(o: HttpObservation): void {
  const method = METHODS.has(o.method) ? o.method : 'OTHER';
  const status = String(o.status);
  httpMetrics.requestsTotal.inc({ service: o.service, method, route: o.route, status });
  httpMetrics.duration.observe({ service: o.service, method, route: o.route }, o.seconds);
  if (o.status >= 400) httpMetrics.errorsTotal.inc({ service: o.service, status, code: o.code ?? 'none' });
}

/** The matched route template of an Express request (set by the router once a route matched). */
export function expressRouteOf(req: IncomingMessage): string {
  const express = req as IncomingMessage & { route?: { path?: unknown }; baseUrl?: string };
  const path = express.route?.path;
  return typeof path === 'string' ? `${express.baseUrl ?? ''}${path}` : UNMATCHED_ROUTE;
}

export type HttpResponse = ServerResponse;
