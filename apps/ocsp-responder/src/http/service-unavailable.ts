import { ServerResponse } from 'node:http';
import { sendBody } from './send-body';

/**
 * 503 with `Retry-After` (RFC 9110 15.6.4, 10.2.3): the public surface cannot answer right now
 * (its database is unreachable, or it is shedding load), and a client should try again shortly.
 */
export function serviceUnavailable(res: ServerResponse, retryAfterSeconds: number, detail: string): void {
  if (res.headersSent) return void res.destroy();
  res.setHeader('Retry-After', String(retryAfterSeconds));
  res.setHeader('Cache-Control', 'no-store');
  const body = Buffer.from(
    JSON.stringify({ type: 'about:blank', title: 'Service Unavailable', status: 503, detail }),
  );
  sendBody(res, 503, 'application/problem+json; charset=utf-8', body);
}
