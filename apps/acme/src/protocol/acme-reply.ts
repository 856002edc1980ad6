import { AcmeHttpResponse } from '@ca/contracts';
import { AcmeProblem } from './acme-problem';

/** What a handler answers; the server adds Replay-Nonce, Link index and Cache-Control. */
export interface AcmeReply {
  status: number;
  body?: unknown;
  /** Default application/json for objects. */
  contentType?: string;
  location?: string;
  /** `<url>;rel="up"` and the like (RFC 8555 7.1). */
  links?: string[];
  headers?: Record<string, string>;
}

export const json = (
  status: number,
  body: unknown,
  extra: Omit<AcmeReply, 'status' | 'body'> = {},
): AcmeReply => ({
  status,
  body,
  ...extra,
});

export function problemReply(problem: AcmeProblem): AcmeReply {
  return {
    status: problem.status,
    body: problem.toDocument(),
    contentType: 'application/problem+json',
    headers: problem.headers,
  };
}

export function encodeReply(
  reply: AcmeReply,
  /** indexUrl: the directory, absent where there is none (a path that is no tenant's). */
  common: { nonce?: string; indexUrl?: string },
): AcmeHttpResponse {
  const links = [...(common.indexUrl ? [`<${common.indexUrl}>;rel="index"`] : []), ...(reply.links ?? [])];
  const headers: Record<string, string | string[]> = {
    'cache-control': 'no-store',
    ...(links.length > 0 ? { link: links } : {}),
    ...(reply.headers ?? {}),
  };
  if (common.nonce) headers['replay-nonce'] = common.nonce;
  if (reply.location) headers.location = reply.location;
  let body = Buffer.alloc(0);
  if (typeof reply.body === 'string') {
    body = Buffer.from(reply.body, 'utf8');
    headers['content-type'] = reply.contentType ?? 'text/plain';
  } else if (reply.body !== undefined) {
    body = Buffer.from(JSON.stringify(reply.body), 'utf8');
    headers['content-type'] = reply.contentType ?? 'application/json';
  }
  return { status: reply.status, headers, body: body.toString('base64') };
}
