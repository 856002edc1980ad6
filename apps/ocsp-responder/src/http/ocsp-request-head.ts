/** The one request shape the fast front answers itself: a whole, simple OCSP POST or GET. */
export interface SimpleOcspRequest {
  method: 'POST' | 'GET';
  tenantId: string;
  /** POST: the DER request (the body). */
  body?: Buffer;
  /** GET: the path after `ocsp/`, not yet %-decoded (RFC 6960 A.1). */
  encoded?: string;
  /** Whether the connection stays open after the answer (RFC 9112 9.3). */
  keepAlive: boolean;
}

/** Same limit as the Node path's (ocsp.http.ts): a larger body is refused there, not here. */
const BODY_LIMIT_BYTES = 64 * 1024;
const HEAD_END = Buffer.from('\r\n\r\n');
/** Longest head looked at: OCSP GET paths are a few hundred bytes; longer goes to Node. */
const HEAD_LIMIT_BYTES = 4096;

const REQUEST_LINE = /^(POST|GET) (\/v1\/tenants\/[A-Za-z0-9._~-]+\/ocsp(?:\/[^ ?#]*)?) HTTP\/1\.([01])$/;
// Trailing spaces are trimmed, a trailing tab is kept: llhttp keeps it in the value, so
// `Connection: close<TAB>` keeps the connection open and `Content-Length: 3<TAB>` is a 400 there;
// kept here, such a value is unknown and the request goes to Node (found by the differential test).
const HEADER_LINE = /^([A-Za-z0-9-]+):[ \t]*(.*?) *$/;
/** Printable ASCII and tab: anything else in the head (obs-fold, bare CR/LF, NUL, 8-bit) is unusual. */
const PLAIN_HEAD = /^[\t\x20-\x7e]*$/;
const GET_REQUEST = /^[A-Za-z0-9+/=_%-]+$/;
const DECIMAL = /^\d{1,6}$/;

/**
 * Headers that change nothing in the answer. Any other one (Transfer-Encoding, Expect, Upgrade,
 * If-None-Match, If-Modified-Since, Range, trailers, tracing…) needs Node's care: not answered here.
 */
const HARMLESS_HEADERS = new Set([
  'host',
  'user-agent',
  'accept',
  'accept-encoding',
  'accept-language',
  'content-type',
  'content-length',
  'connection',
  'cache-control',
  'pragma',
  // Sent by fetch() (browsers, Node): a hint for the server's CORS policy, which this surface has none of.
  'sec-fetch-mode',
]);

/**
 * Recognises `bytes` as exactly one complete HTTP/1.x request of the shape above and nothing more,
 * or returns undefined: a partial request, pipelined bytes after it, any header outside the list,
 * a duplicate header, a HEAD, a query string, a %-escaped tenant… It refuses rather than guesses;
 * Node's own parser answers whatever this refuses.
 */
export function parseSimpleOcspRequest(bytes: Buffer): SimpleOcspRequest | undefined {
  const headEnd = bytes.indexOf(HEAD_END);
  if (headEnd === -1 || headEnd > HEAD_LIMIT_BYTES) return undefined;
  const head = bytes.toString('latin1', 0, headEnd);
  if (!PLAIN_HEAD.test(head.replace(/\r\n/g, ''))) return undefined;
  const lines = head.split('\r\n');
  const requestLine = REQUEST_LINE.exec(lines[0]);
  if (!requestLine) return undefined;
  const [, method, target, minor] = requestLine;

  const headers = new Map<string, string>();
  for (let i = 1; i < lines.length; i++) {
    const header = HEADER_LINE.exec(lines[i]);
    if (!header) return undefined;
    const name = header[1].toLowerCase();
    if (!HARMLESS_HEADERS.has(name) || headers.has(name)) return undefined;
    headers.set(name, header[2]);
  }

  const keepAlive = keepAliveOf(minor === '1', headers.get('connection'));
  // RFC 9112 3.2: an HTTP/1.1 request without Host is a 400, which Node gives.
  if (keepAlive === undefined || (minor === '1' && !headers.has('host'))) return undefined;

  const bodyStart = headEnd + HEAD_END.length;
  const lengthHeader = headers.get('content-length');
  const length = lengthHeader === undefined ? 0 : DECIMAL.test(lengthHeader) ? Number(lengthHeader) : -1;
  if (length < 0 || length > BODY_LIMIT_BYTES || bytes.length !== bodyStart + length) return undefined;

  const slash = target.indexOf('/', '/v1/tenants/'.length);
  const tenantId = target.slice('/v1/tenants/'.length, slash);
  const rest = target.slice(slash + '/ocsp'.length);
  if (method === 'POST') {
    if (lengthHeader === undefined || (rest !== '' && rest !== '/')) return undefined;
    return { method, tenantId, body: bytes.subarray(bodyStart), keepAlive };
  }
  const encoded = rest.slice(1);
  if (length !== 0 || !GET_REQUEST.test(encoded)) return undefined;
  return { method: 'GET', tenantId, encoded, keepAlive };
}

/** HTTP/1.1 stays open unless `close`; HTTP/1.0 closes unless `keep-alive`. Other values: undefined. */
function keepAliveOf(http11: boolean, connection: string | undefined): boolean | undefined {
  if (connection === undefined) return http11;
  const value = connection.toLowerCase();
  if (value === 'close') return false;
  if (value === 'keep-alive') return true;
  return undefined;
}
