import { randomUUID } from 'node:crypto';
import { NextFunction, Request, Response } from 'express';

/**
 * What a caller's X-Request-Id may be: a token of letters, digits and `._:-` (UUIDs, ULIDs,
 * W3C trace ids, `service:1234`), which is safe in logs, the audit log and a header. Anything else
 * (spaces, quotes, control characters, `/` path tricks, over 128) is replaced.
 */
const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export interface RequestWithId extends Request {
  requestId: string;
}

/**
 * docs/api.md#errors `requestId`: echoes the caller's X-Request-Id when it matches SAFE_REQUEST_ID, else
 * makes one (a UUID); the one used is always returned in the X-Request-Id response header.
 */
export function requestIdMiddleware(req: Request, res: Response, next: NextFunction): void {
  const supplied = req.header('x-request-id');
  const requestId = supplied && SAFE_REQUEST_ID.test(supplied) ? supplied : randomUUID();
  (req as RequestWithId).requestId = requestId;
  res.setHeader('X-Request-Id', requestId);
  next();
}
