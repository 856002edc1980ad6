import { IncomingMessage, ServerResponse } from 'node:http';
import { CaError, ErrorCode } from '@ca/contracts';
import { PROBLEM_CONTENT_TYPE, toProblemDocument } from '@ca/problem';
import { TooManyRequests } from '@ca/runtime';

/**
 * The admin API's answer to a client over its request rate (HTTP_CLIENT_REQUESTS_PER_SECOND),
 * given before any handler runs: a 429 RATE_LIMITED problem with Retry-After, as the tenant limit's.
 */
export function tooManyRequestsProblem(catalogUrl: string): TooManyRequests {
  return (_req: IncomingMessage, res: ServerResponse, retryAfterSeconds: number) => {
    const error = new CaError(ErrorCode.RateLimited, 'Too many requests from this client address.');
    const problem = JSON.stringify(toProblemDocument(error, { catalogUrl, requestId: 'unknown' }));
    res.writeHead(429, {
      'Retry-After': String(retryAfterSeconds),
      'Cache-Control': 'no-store',
      'Content-Type': PROBLEM_CONTENT_TYPE,
      'Content-Length': Buffer.byteLength(problem),
    });
    res.end(problem);
  };
}
