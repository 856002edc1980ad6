import { OcspAnswer } from '../ocsp/ocsp.responder';

/** A serial not seen yet: nothing may be kept or reused (RFC 6960 2.4, RFC 9111 5.2.2). */
export const NEVER_CACHED = 'no-cache, no-store';
/** Error and nonce answers: for this request only. */
export const NOT_STORED = 'no-store';
/**
 * OCSP answers are public and carry no credential: a page of another origin may read them (the
 * operator console shows a certificate's status as relying parties get it, docs/console.md).
 * A GET needs no preflight; a POST of application/ocsp-request would, and gets none.
 */
const ANY_ORIGIN: [string, string] = ['Access-Control-Allow-Origin', '*'];

/**
 * The caching headers of an OCSP answer, in the order both HTTP paths write them (the fast front
 * and `OcspHttp` must send the same bytes). Authoritative answers, POST and GET alike (RFC 5019
 * 6.2): `Expires` = nextUpdate, `ETag` = quoted hex SHA-256 of the body, `Last-Modified` =
 * thisUpdate, and `Cache-Control: public, max-age=<whole seconds to nextUpdate>, no-transform,
 * must-revalidate`. Answers naming an unknown serial: `no-cache, no-store`; the rest: `no-store`.
 */
export function ocspCacheHeaders(answer: OcspAnswer, now: number): [name: string, value: string][] {
  if (answer.unknown) return [['Cache-Control', NEVER_CACHED], ANY_ORIGIN];
  if (!answer.cache) return [['Cache-Control', NOT_STORED], ANY_ORIGIN];
  const { etag, thisUpdate, nextUpdate } = answer.cache;
  const maxAge = Math.max(0, Math.floor((nextUpdate.getTime() - now) / 1000));
  return [
    ['Expires', nextUpdate.toUTCString()],
    ['ETag', etag],
    ['Last-Modified', lastModifiedOf(thisUpdate).toUTCString()],
    ['Cache-Control', `public, max-age=${maxAge}, no-transform, must-revalidate`],
    ANY_ORIGIN,
  ];
}

/** Last-Modified has whole seconds (RFC 9110 5.6.7); conditional requests compare with the same. */
export function lastModifiedOf(thisUpdate: Date): Date {
  return new Date(Math.floor(thisUpdate.getTime() / 1000) * 1000);
}
