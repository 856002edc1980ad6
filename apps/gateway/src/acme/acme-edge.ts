import { NextFunction, Request, Response } from 'express';
import { AcmeApi, AcmeHttpResponse, AcmePattern, parseAcmeHttpResponse, parseTenantId } from '@ca/contracts';
import { RpcClient } from '@ca/messaging';
import { inRequestContext } from '@ca/observability';
import { clientAddressOf } from '@ca/runtime';
import { AUDIT_READ_ONLY_LOCAL } from '../audit/audit.middleware';
import { AuthenticatedPrincipal } from '../auth/authenticated-principal';

/** `/acme/{tenantId}/…` (Express matches paths case-insensitively, and so did the route this replaces). */
const ACME_PATH = /^\/acme\/([^/]+)(\/.*)$/i;
/** The route label of every ACME request in the metrics and traces. */
export const ACME_ROUTE = '/acme/:tenantId/*path';
/** The admin API's body limit (docs/security.md#acme). */
const MAX_BODY_BYTES = 64 * 1024;
const utf8 = new TextDecoder('utf-8', { fatal: true });

export function isAcmePath(path: string): boolean {
  return ACME_PATH.test(path);
}

/**
 * The HTTP edge of ACME (docs/api.md#acme), mounted before the admin API's body parser and Nest:
 * no bearer token (ACME requests carry their own JWS), so none of the admin API's guards, pipes
 * or interceptors apply, and the body goes to the acme context over the bus as the bytes that
 * came (a JWS is verified over its text; parsing and re-serializing it was work for nothing).
 * The gateway keeps its body limit and refuses a body that is not UTF-8; rate limits, nonces and
 * signatures are acme's. Its answer is written back as it is.
 */
export function acmeEdge(acme: RpcClient<AcmeApi>) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const match = ACME_PATH.exec(req.path);
    if (!match) return next();
    const [, tenantId, path] = match;
    // The audit entry names the tenant (when the segment is a tenant id at all); the account that
    // signed, once acme has said which.
    const tenant = parseTenantId(tenantId);
    if (tenant) (req as Request & { user?: AuthenticatedPrincipal }).user = principal(tenant, 'acme');
    readBody(req).then(
      (body) => inRequestContext(req, () => forward(acme, req, res, { tenantId, path, body })),
      (refusal: unknown) => {
        if (refusal instanceof BodyRefused) answer(res, problem(refusal.status, refusal.message));
        // Otherwise the client went away while sending: nobody to answer.
      },
    );
  };
}

async function forward(
  acme: RpcClient<AcmeApi>,
  req: Request,
  res: Response,
  request: { tenantId: string; path: string; body: Buffer },
): Promise<void> {
  let reply: AcmeHttpResponse | undefined;
  try {
    reply = parseAcmeHttpResponse(
      await acme.send(AcmePattern.Http, {
        tenantId: request.tenantId,
        method: req.method,
        path: request.path,
        contentType: req.headers['content-type'],
        body: request.body.toString('base64'),
        clientAddress: clientAddressOf(req),
      }),
    );
  } catch {
    reply = undefined;
  }
  if (!reply) {
    answer(res, {
      ...problem(503, 'the ACME service is not available; retry shortly', 'serverInternal'),
      headers: { 'content-type': 'application/problem+json', 'retry-after': '5' },
    });
    return;
  }
  // Reads (GET, HEAD, POST-as-GET) are not audited: they change nothing and come as often as a
  // client polls (docs/api.md#audit-log).
  if (reply.readOnly) res.locals[AUDIT_READ_ONLY_LOCAL] = true;
  const user = (req as Request & { user?: AuthenticatedPrincipal }).user;
  if (user && reply.principal) user.subject = reply.principal;
  answer(res, { status: reply.status, headers: reply.headers, body: Buffer.from(reply.body, 'base64') });
}

function answer(
  res: Response,
  reply: { status: number; headers: Record<string, string | string[]>; body: Buffer },
): void {
  if (res.headersSent || res.destroyed) return;
  res.status(reply.status).set(reply.headers).send(reply.body);
}

/** An ACME problem document (RFC 8555 6.7) the gateway answers itself. */
function problem(status: number, detail: string, type = 'malformed') {
  return {
    status,
    headers: { 'content-type': 'application/problem+json' },
    body: Buffer.from(JSON.stringify({ type: `urn:ietf:params:acme:error:${type}`, detail, status })),
  };
}

function principal(tenantId: AuthenticatedPrincipal['tenantId'], subject: string): AuthenticatedPrincipal {
  return { tenantId, subject, scopes: [] };
}

class BodyRefused extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** The body, up to the limit; a larger one is refused (413) unread, one that is not UTF-8 (400). */
function readBody(req: Request): Promise<Buffer> {
  const tooLarge = () => new BodyRefused(413, `the request body is larger than ${MAX_BODY_BYTES / 1024} KiB`);
  if (Number(req.headers['content-length'] ?? 0) > MAX_BODY_BYTES) {
    req.resume();
    return Promise.reject(tooLarge());
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) return void chunks.push(chunk);
      req.off('data', onData);
      req.resume();
      reject(tooLarge());
    };
    req.on('data', onData);
    req.once('end', () => {
      const body = Buffer.concat(chunks, size);
      try {
        utf8.decode(body);
      } catch {
        return reject(new BodyRefused(400, 'the request body is not valid UTF-8'));
      }
      resolve(body);
    });
    req.once('error', reject);
  });
}
