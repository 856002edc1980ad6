import { ServerResponse } from 'node:http';
import { sendBody } from './send-body';

/** 404 of the public surface (unknown tenant, nothing published yet), as a Problem Details body. */
export function notFoundProblem(res: ServerResponse, detail: string): void {
  // Not cacheable: the CA or CRL may be published a moment later.
  res.setHeader('Cache-Control', 'no-store');
  const body = Buffer.from(JSON.stringify({ type: 'about:blank', title: 'Not Found', status: 404, detail }));
  sendBody(res, 404, 'application/problem+json; charset=utf-8', body);
}
