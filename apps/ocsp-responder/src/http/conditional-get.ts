import { IncomingMessage, ServerResponse } from 'node:http';

export interface CacheableRepresentation {
  etag: string;
  lastModified: Date;
  maxAgeSeconds: number;
}

/**
 * Sets the validators and Cache-Control of a cacheable public resource and answers 304 when
 * the client's copy is current (RFC 9110 13.1; If-None-Match wins over If-Modified-Since).
 * Returns true when the 304 was sent.
 */
export function answerConditionally(
  req: Pick<IncomingMessage, 'headers'>,
  res: Pick<ServerResponse, 'setHeader' | 'end' | 'statusCode'>,
  representation: CacheableRepresentation,
): boolean {
  const validators = validatorHeaders(representation);
  const lastModified = validators.lastModified;
  res.setHeader('ETag', validators.etag);
  res.setHeader('Last-Modified', validators.lastModifiedText);
  res.setHeader('Cache-Control', validators.cacheControl);
  const notModified = isNotModified(req, representation.etag, lastModified);
  if (notModified) {
    res.statusCode = 304;
    res.end();
  }
  return notModified;
}

/**
 * Whether the client's copy is current: If-None-Match against `etag` (weak comparison), else
 * If-Modified-Since against `lastModified` (whole seconds) (RFC 9110 13.1.2, 13.1.3).
 */
export function isNotModified(
  req: Pick<IncomingMessage, 'headers'>,
  etag: string,
  lastModified: Date,
): boolean {
  const ifNoneMatch = req.headers['if-none-match'];
  const ifModifiedSince = req.headers['if-modified-since'];
  if (ifNoneMatch !== undefined) {
    return ifNoneMatch
      .split(',')
      .map((tag) => tag.trim().replace(/^W\//, ''))
      .some((tag) => tag === '*' || tag === etag);
  }
  if (ifModifiedSince === undefined) return false;
  const since = Date.parse(ifModifiedSince);
  return !Number.isNaN(since) && lastModified.getTime() <= since;
}

/** The validator and Cache-Control values of a representation, as both HTTP paths send them. */
export function validatorHeaders(representation: CacheableRepresentation) {
  // Last-Modified has whole seconds (RFC 9110 5.6.7); comparisons use the same value.
  const lastModified = new Date(Math.floor(representation.lastModified.getTime() / 1000) * 1000);
  return {
    etag: representation.etag,
    lastModified,
    lastModifiedText: lastModified.toUTCString(),
    cacheControl: `public, max-age=${Math.max(0, Math.floor(representation.maxAgeSeconds))}`,
  };
}
