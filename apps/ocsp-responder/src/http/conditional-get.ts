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
  const ifNoneMatch = req.headers['if-none-match'];
  const ifModifiedSince = req.headers['if-modified-since'];
  let notModified = false;
  if (ifNoneMatch !== undefined) {
    notModified = ifNoneMatch
      .split(',')
      .map((tag) => tag.trim().replace(/^W\//, ''))
      .some((tag) => tag === '*' || tag === representation.etag);
  } else if (ifModifiedSince !== undefined) {
    const since = Date.parse(ifModifiedSince);
    notModified = !Number.isNaN(since) && lastModified.getTime() <= since;
  }
  if (notModified) {
    res.statusCode = 304;
    res.end();
  }
  return notModified;
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
