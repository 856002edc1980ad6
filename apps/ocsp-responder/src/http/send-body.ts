import { ServerResponse } from 'node:http';

/**
 * Ends `res` with a whole body, its type and length; headers set before are kept. For HEAD, Node
 * leaves the body out and keeps the Content-Length of the GET answer (RFC 9110 9.3.2).
 */
export function sendBody(res: ServerResponse, status: number, contentType: string, body: Buffer): void {
  res.statusCode = status;
  res.setHeader('Content-Type', contentType);
  res.setHeader('Content-Length', body.length);
  res.end(body);
}
