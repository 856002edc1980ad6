import { IncomingMessage } from 'node:http';
import { EventBus } from '@ca/messaging';
import {
  UNMATCHED_ROUTE,
  expressRouteOf,
  httpMetrics,
  messagingMetrics,
  ocspMetrics,
} from '@ca/observability';
import { ServedCrlStore } from './crls/served-crl.store';

/**
 * Gauges the responder reports at scrape time: the age of the newest CRL it serves per tenant
 * (seconds since thisUpdate; alert well before 24 h, when the CRL expires) and its consumer's
 * lag. Returns the function that removes them when the responder stops.
 */
export function registerResponderGauges(
  crls: ServedCrlStore,
  events: EventBus,
  consumer: string,
): () => void {
  const unregister = [
    ocspMetrics.crlAge.register(async () => {
      const ages = await crls.ages();
      return ages.map((a) => ({ labels: { tenant: a.tenantId }, value: Math.max(0, a.seconds) }));
    }),
    messagingMetrics.consumerPending.register(async () => [
      { labels: { consumer }, value: await events.pending(consumer) },
    ]),
  ];
  return () => unregister.forEach((remove) => remove());
}

const PUBLIC_ROUTE = /^\/v1\/tenants\/[^/]+\/(ca\.pem|ca\.crt|crl|ocsp)(\/[^/]*)?\/?$/;

/**
 * Route template of a request to the public surface, for bounded metric labels: the tenant id
 * and the base64 OCSP request of a GET never become label values.
 */
export function publicSurfaceRouteOf(req: IncomingMessage): string {
  const path = (req.url ?? '').split('?')[0];
  const match = PUBLIC_ROUTE.exec(path);
  if (match) {
    if (match[1] === 'ocsp' && match[2] && match[2] !== '/') return OCSP_GET_ROUTE;
    return match[2] && match[2] !== '/' ? UNMATCHED_ROUTE : `/v1/tenants/:tenantId/${match[1]}`;
  }
  if (path === '/metrics') return '/metrics';
  return expressRouteOf(req);
}

const OCSP_POST_ROUTE = '/v1/tenants/:tenantId/ocsp';
const OCSP_GET_ROUTE = '/v1/tenants/:tenantId/ocsp/:request';

/**
 * Request metrics of the answers the fast front sends itself, with the labels the Node path gives
 * the same answers (`service`, method, route template, 200). The label sets are bound once: per
 * answer, one counter increment and one histogram observation without label hashing.
 */
export function fastAnswerMetrics(service: string): (method: 'POST' | 'GET', seconds: number) => void {
  const bound = (method: 'POST' | 'GET', route: string) => ({
    requests: httpMetrics.requestsTotal.labels({ service, method, route, status: '200' }),
    duration: httpMetrics.duration.labels({ service, method, route }),
  });
  const post = bound('POST', OCSP_POST_ROUTE);
  const get = bound('GET', OCSP_GET_ROUTE);
  return (method, seconds) => {
    const metrics = method === 'POST' ? post : get;
    metrics.requests.inc();
    metrics.duration.observe(seconds);
  };
}
