import { IncomingMessage } from 'node:http';

/** RFC 8259 8.1 / RFC 6838 4.2.8: application/json or any structured `+json` type. */
const JSON_MEDIA_TYPE = /^application\/(?:[\w.-]+\+)?json\s*(?:;|$)/i;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** An error body-parser passes on with its own `status` and `type` (see the problem filter). */
function bodyError(status: number, type: string, message: string): Error {
  return Object.assign(new Error(message), { status, type, expose: true });
}

/**
 * body-parser `verify` hook of the admin API: a body must be declared as JSON (a form or text/plain
 * is refused instead of being parsed anyway) and be valid UTF-8 (RFC 8259 8.1), so that a
 * malformed byte is refused rather than silently turned into U+FFFD inside a certificate subject.
 */
export function verifyJsonBody(req: IncomingMessage, _res: unknown, body: Buffer): void {
  if (body.length === 0) return;
  if (!JSON_MEDIA_TYPE.test(req.headers['content-type'] ?? '')) {
    throw bodyError(415, 'content-type.unsupported', 'the body is not application/json');
  }
  try {
    utf8.decode(body);
  } catch {
    throw bodyError(400, 'encoding.invalid', 'the body is not valid UTF-8');
  }
}
