import { Response } from 'express';

/** 404 of the public surface (unknown tenant, nothing published yet), as a Problem Details body. */
export function notFoundProblem(res: Response, detail: string): void {
  // Not cacheable: the CA or CRL may be published a moment later.
  res.setHeader('Cache-Control', 'no-store');
  res
    .status(404)
    .type('application/problem+json')
    .send(JSON.stringify({ type: 'about:blank', title: 'Not Found', status: 404, detail }));
}
