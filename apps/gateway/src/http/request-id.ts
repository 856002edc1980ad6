import { randomUUID } from 'node:crypto';
import { NextFunction, Request, Response } from 'express';

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

export interface RequestWithId extends Request {
  requestId: string;
}

/**
 * Spec 7.1 `requestId`: echoes the caller's X-Request-Id when it is a sane token, else makes one;
 * always returned in the X-Request-Id response header.
 */
export function requestIdMiddleware(req: Request, res: Response, next: NextFunction): void {
  const supplied = req.header('x-request-id');
  const requestId = supplied && SAFE_REQUEST_ID.test(supplied) ? supplied : randomUUID();
  (req as RequestWithId).requestId = requestId;
  res.setHeader('X-Request-Id', requestId);
  next();
}
